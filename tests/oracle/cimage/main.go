// Command cimage is the oracle of the containers/image differential test
// (tests/cimage_oracle.rs): it answers, with containers/image itself, how a
// node resolves and pulls each image of a case, for explain to be compared
// with.
//
// It reads JSON lines on stdin, one case each:
//
//	{"conf": FILE, "dir": DIR, "policy": FILE or "", "userAliases": FILE,
//	 "mode": "" | "enforcing" | "permissive" | "disabled", "images": [...]}
//
// and writes one JSON line per case: the configuration's error, if
// TryUpdatingCache refuses it, the policy's, if policy.json does not load,
// and for each image either the error that stops it before any endpoint
// (shortnames.Resolve) or its candidates. A candidate has the entry
// FindRegistry gives, the pull sources of PullSourcesFromReference (or its
// error), each with its endpoint's Insecure flag and whether the docker
// transport would refuse it as blocked (FindRegistry on the rewritten
// reference, as newDockerClient does), and what the signature policy says
// of the candidate: IsRunningImageAllowed over an image with one bogus
// signature, so that a signedBy requirement answers with its key file's
// error, naming which requirement applied.
//
// One step is CRI-O's, not the library's: a candidate with both a tag and a
// digest is pulled by its digest alone (CRI-O's RegistryImageReferenceFromRaw).
//
// The test builds it against the containers/image 5.34 source of a Debian
// 13 root; it is never committed built.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/containers/image/v5/docker"
	"github.com/containers/image/v5/docker/reference"
	"github.com/containers/image/v5/pkg/shortnames"
	"github.com/containers/image/v5/pkg/sysregistriesv2"
	"github.com/containers/image/v5/signature"
	"github.com/containers/image/v5/types"
)

type request struct {
	Conf        string   `json:"conf"`
	Dir         string   `json:"dir"`
	Policy      string   `json:"policy"`
	UserAliases string   `json:"userAliases"`
	Mode        string   `json:"mode"`
	Images      []string `json:"images"`
}

type registry struct {
	Prefix             string `json:"prefix"`
	Location           string `json:"location"`
	Blocked            bool   `json:"blocked"`
	Insecure           bool   `json:"insecure"`
	MirrorByDigestOnly bool   `json:"mirrorByDigestOnly"`
}

type source struct {
	Reference string `json:"reference"`
	Insecure  bool   `json:"insecure"`
	Blocked   bool   `json:"blocked"`
}

type policyVerdict struct {
	Allowed bool   `json:"allowed"`
	Message string `json:"message"`
}

type candidate struct {
	Reference string         `json:"reference"`
	Registry  *registry      `json:"registry"`
	Sources   []source       `json:"sources"`
	Error     string         `json:"error,omitempty"`
	Policy    *policyVerdict `json:"policy,omitempty"`
}

type image struct {
	Error      string      `json:"error,omitempty"`
	Candidates []candidate `json:"candidates"`
}

type answer struct {
	ConfigError string  `json:"configError,omitempty"`
	PolicyError string  `json:"policyError,omitempty"`
	Images      []image `json:"images"`
}

// signedImage is an image whose only signature is not one: a signedBy
// requirement loads its key before it can say so, and its error names the
// key file.
type signedImage struct {
	ref types.ImageReference
}

func (i signedImage) Reference() types.ImageReference { return i.ref }

func (i signedImage) Manifest(context.Context) ([]byte, string, error) {
	return []byte(`{"schemaVersion": 2}`), "application/vnd.docker.distribution.manifest.v2+json", nil
}

func (i signedImage) Signatures(context.Context) ([][]byte, error) {
	return [][]byte{[]byte("not a signature")}, nil
}

// pulled is the reference CRI-O pulls for a candidate: by digest alone when
// it has both a tag and a digest.
func pulled(named reference.Named) (reference.Named, error) {
	digested, isDigested := named.(reference.Digested)
	if _, isTagged := named.(reference.Tagged); isTagged && isDigested {
		return reference.WithDigest(reference.TrimNamed(named), digested.Digest())
	}
	return named, nil
}

func explainCandidate(sys *types.SystemContext, pc *signature.PolicyContext, named reference.Named) candidate {
	out := candidate{Reference: named.String(), Sources: []source{}}
	reg, err := sysregistriesv2.FindRegistry(sys, named.Name())
	if err != nil {
		out.Error = err.Error()
		return out
	}
	if pc != nil {
		out.Policy = policyOf(pc, named)
	}
	// As the docker transport's newImageSource: no entry, the reference itself.
	lookup := reg
	if reg != nil {
		out.Registry = &registry{reg.Prefix, reg.Location, reg.Blocked, reg.Insecure, reg.MirrorByDigestOnly}
	} else {
		lookup = &sysregistriesv2.Registry{
			Endpoint: sysregistriesv2.Endpoint{Location: named.String()},
			Prefix:   named.String(),
		}
	}
	sources, err := lookup.PullSourcesFromReference(named)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	for _, s := range sources {
		physical, err := sysregistriesv2.FindRegistry(sys, s.Reference.Name())
		if err != nil {
			out.Error = err.Error()
			return out
		}
		out.Sources = append(out.Sources, source{
			Reference: s.Reference.String(),
			Insecure:  s.Endpoint.Insecure,
			Blocked:   physical != nil && physical.Blocked,
		})
	}
	return out
}

func policyOf(pc *signature.PolicyContext, named reference.Named) *policyVerdict {
	ref, err := docker.NewReference(named)
	if err != nil {
		return &policyVerdict{Message: "reference: " + err.Error()}
	}
	allowed, err := pc.IsRunningImageAllowed(context.Background(), signedImage{ref})
	v := &policyVerdict{Allowed: allowed}
	if err != nil {
		v.Message = err.Error()
	}
	return v
}

func explainImage(sys *types.SystemContext, pc *signature.PolicyContext, name string) (out image) {
	defer func() {
		if r := recover(); r != nil {
			out = image{Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	out.Candidates = []candidate{}
	resolved, err := shortnames.Resolve(sys, name)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	for _, c := range resolved.PullCandidates {
		named, err := pulled(c.Value)
		if err != nil {
			out.Error = err.Error()
			return out
		}
		out.Candidates = append(out.Candidates, explainCandidate(sys, pc, named))
	}
	return out
}

func answerCase(req request) answer {
	// Each case names its own files; nothing is kept from the one before.
	sysregistriesv2.InvalidateCache()
	sys := &types.SystemContext{
		SystemRegistriesConfPath:    req.Conf,
		SystemRegistriesConfDirPath: req.Dir,
		UserShortNameAliasConfPath:  req.UserAliases,
	}
	if req.Mode != "" {
		var mode types.ShortNameMode
		switch req.Mode {
		case "enforcing":
			mode = types.ShortNameModeEnforcing
		case "permissive":
			mode = types.ShortNameModePermissive
		case "disabled":
			mode = types.ShortNameModeDisabled
		default:
			mode = types.ShortNameModeInvalid
		}
		sys.ShortNameMode = &mode
	}
	out := answer{Images: []image{}}
	if _, err := sysregistriesv2.TryUpdatingCache(sys); err != nil {
		out.ConfigError = err.Error()
		return out
	}
	var pc *signature.PolicyContext
	if req.Policy != "" {
		policy, err := signature.NewPolicyFromFile(req.Policy)
		if err == nil {
			pc, err = signature.NewPolicyContext(policy)
		}
		if err != nil {
			out.PolicyError = err.Error()
			return out
		}
		defer pc.Destroy()
	}
	for _, name := range req.Images {
		out.Images = append(out.Images, explainImage(sys, pc, name))
	}
	return out
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 64<<20)
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			fmt.Fprintln(os.Stderr, "reading a case:", err)
			os.Exit(2)
		}
		if err := enc.Encode(answerCase(req)); err != nil {
			fmt.Fprintln(os.Stderr, "writing an answer:", err)
			os.Exit(2)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "reading the cases:", err)
		os.Exit(2)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "writing the answers:", err)
		os.Exit(2)
	}
}
