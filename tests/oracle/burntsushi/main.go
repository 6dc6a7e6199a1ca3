// Command burntsushi is the oracle of the BurntSushi/toml differential
// tests: it reads a JSON array of TOML documents on stdin, decodes each with
// github.com/BurntSushi/toml into a map, as containers/image's
// sysregistriesv2 parses registries.conf before it decodes the fields, and
// writes a JSON array with, for each document, either {"ok": true,
// "value": ...} (the decoded map, as JSON) or {"ok": false, "error": ...}.
// The tests build it with the BurntSushi/toml of the machine's Go path; it
// is never committed built.
package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/BurntSushi/toml"
)

type verdict struct {
	OK    bool        `json:"ok"`
	Error string      `json:"error,omitempty"`
	Value interface{} `json:"value,omitempty"`
}

// plain turns decoded TOML values into JSON-encodable ones: floats that
// JSON cannot hold and times become strings.
func plain(v interface{}) interface{} {
	switch t := v.(type) {
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[k] = plain(e)
		}
		return out
	case []map[string]interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	case float64:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return "<non-finite float>"
		}
		return t
	case time.Time:
		// registries.conf has no date-time field: only that it is one matters.
		return "<datetime>"
	default:
		return t
	}
}

func decode(doc string) (v verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = verdict{OK: false, Error: fmt.Sprintf("panic: %v", r)}
		}
	}()
	var m map[string]interface{}
	if _, err := toml.Decode(doc, &m); err != nil {
		return verdict{OK: false, Error: err.Error()}
	}
	return verdict{OK: true, Value: plain(m)}
}

func main() {
	var docs []string
	if err := json.NewDecoder(os.Stdin).Decode(&docs); err != nil {
		fmt.Fprintln(os.Stderr, "reading the documents:", err)
		os.Exit(2)
	}
	out := make([]verdict, len(docs))
	for i, d := range docs {
		out[i] = decode(d)
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "writing the verdicts:", err)
		os.Exit(2)
	}
}
