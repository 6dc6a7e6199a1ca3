
use builtin;
use str;

set edit:completion:arg-completer[kubectl-mirrorpolicy] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'kubectl-mirrorpolicy'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'kubectl-mirrorpolicy'= {
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand explain 'Explain where CRI-O pulls IMAGE from: ordered pull sources, skipped mirrors, blocks, short-name candidates and signature policy. Exit 1 when an image''s pull would be refused or fail, 2 when a reference is invalid'
            cand render 'Render what the Machine Config Operator generates from the mirror CRs: registries.conf, policy.json, registries.d, namespace policies and the generated MachineConfig'
            cand lint 'Check mirror CRs before applying them: the API server''s CRD rules and the MCO''s own validation (which it only logs), plus warnings. Exit 1 when an error is found'
            cand list 'List the effective mirror rules after the MCO''s merge, with the objects behind each'
            cand migrate-icsp 'Convert ImageContentSourcePolicies to ImageDigestMirrorSets (as `oc adm migrate icsp`), prove the nodes see no change, and write them out or apply them to the cluster'
            cand audit 'Check every image that Pods, workload controllers and ClusterServiceVersions reference against the mirrors and policies: which will be served by a mirror, go to the source, fail, or need a signature'
            cand diff 'Compare what the CRs render, the generated MachineConfig, the pool''s rendered config and what each node runs; explain the drift and what the MCO will do on the nodes. Exit 1 on drift'
            cand completion 'Print a shell completion script for kubectl-mirrorpolicy (bash, zsh, fish, powershell, elvish). For `kubectl mirrorpolicy <TAB>`, install completions/kubectl_complete-mirrorpolicy'
            cand __complete 'kubectl''s plugin-completion protocol: candidates for the last of ARGS'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-mirrorpolicy;explain'= {
            cand -f 'Cluster objects (ICSP, IDMS, ITMS, Image, ClusterImagePolicy, ...) from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable'
            cand --filename 'Cluster objects (ICSP, IDMS, ITMS, Image, ClusterImagePolicy, ...) from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable'
            cand --pool 'The pool whose rendered configuration to use (cluster objects, not node files)'
            cand --with 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the cluster''s, same kind and name replacing: how would the image be pulled if they were applied? Repeatable'
            cand --registries-conf 'A registries.conf file, as /etc/containers/registries.conf on a node'
            cand --registries-conf-d 'A registries.conf.d folder of drop-ins (`*.conf`, read in lexical order, merged over the main file)'
            cand --policy-json 'A policy.json file, as /etc/containers/policy.json on a node; without it no signature policy is shown'
            cand --short-name-mode 'Override the short-name mode. Default with node files: their `short-name-mode` (permissive when unset), as podman without a terminal; with -f: CRI-O''s, enforcing from OpenShift 4.21 (CRI-O 1.34), disabled before, from the ClusterVersion when known'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --authfile 'With --probe: the registry credentials (containers-auth.json or a Docker config.json), instead of REGISTRY_AUTH_FILE and containers/image''s default auth files'
            cand --cert-dir 'With --probe: a folder of certificates trusted for every registry, as skopeo''s and podman''s --cert-dir (`*.crt` CAs, `*.cert`/`*.key` client certificate pairs)'
            cand --registries-d 'With --probe and node files: the registries.d folder whose `use-sigstore-attachments` decides where sigstore signatures are looked up (with -f, the MCO''s rendered one is used)'
            cand --probe-timeout 'With --probe: seconds to wait for each registry request'
            cand --probe-concurrency 'With --probe: how many images are probed at once'
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand --probe 'Contact the registries from this machine, as CRI-O would from a node: ping, authenticate and fetch the manifest from each pull source in order, and say which one serves the image (and, when the policy requires sigstore signatures, whether it has them)'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;render'= {
            cand -f 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable'
            cand --filename 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable'
            cand --pool 'The pool to render for (the MCO writes one generated MachineConfig per built-in pool)'
            cand --file 'Print only this node file''s exact content (e.g. /etc/containers/registries.conf)'
            cand --with 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;lint'= {
            cand -f 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable'
            cand --filename 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable'
            cand --with 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;list'= {
            cand -f 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable'
            cand --filename 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable'
            cand --with 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable'
            cand -o 'Output format: table, wide (each mirror''s flags, conflicts in full), name (one source a line), json or yaml'
            cand --output 'Output format: table, wide (each mirror''s flags, conflicts in full), name (one source a line), json or yaml'
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand --no-headers 'Leave out the header row of the table'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;migrate-icsp'= {
            cand -f 'ImageContentSourcePolicies (and the other mirror objects they live with) from files, folders or `-`, instead of the live cluster. Repeatable'
            cand --filename 'ImageContentSourcePolicies (and the other mirror objects they live with) from files, folders or `-`, instead of the live cluster. Repeatable'
            cand --dest-dir 'Write one file per object into DIR (`imagedigestmirrorset_<name>.yaml`); an existing file with other content is never overwritten'
            cand -o 'Output format on stdout'
            cand --output 'Output format on stdout'
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand --with-tag-mirrors 'Also write an ImageTagMirrorSet per ICSP, so that pulls by tag use the mirrors too'
            cand --apply 'Apply the replacements to the live cluster (server-side apply), after a server-side dry run and a confirmation'
            cand --delete-icsp 'With --apply: delete each ICSP once its replacement is read back from the server as planned'
            cand -y 'With --apply: do not ask for confirmation'
            cand --yes 'With --apply: do not ask for confirmation'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;audit'= {
            cand -f 'Workloads and mirror objects from files, folders (a must-gather works as is) or `-`, instead of the live cluster; every namespace in them unless -n is given. Repeatable'
            cand --filename 'Workloads and mirror objects from files, folders (a must-gather works as is) or `-`, instead of the live cluster; every namespace in them unless -n is given. Repeatable'
            cand --fail-on 'Exit 1 when an image is in a class of this level or worse: error (invalid, not-allowed, source-blocked, short-name-refused) or warning (also tag-skips-digest-mirrors, short-name)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --authfile 'With --probe: the registry credentials (containers-auth.json or a Docker config.json), instead of REGISTRY_AUTH_FILE and containers/image''s default auth files'
            cand --cert-dir 'With --probe: a folder of certificates trusted for every registry, as skopeo''s and podman''s --cert-dir (`*.crt` CAs, `*.cert`/`*.key` client certificate pairs)'
            cand --registries-d 'With --probe and node files: the registries.d folder whose `use-sigstore-attachments` decides where sigstore signatures are looked up (with -f, the MCO''s rendered one is used)'
            cand --probe-timeout 'With --probe: seconds to wait for each registry request'
            cand --probe-concurrency 'With --probe: how many images are probed at once'
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand -A 'Every namespace (live: instead of the current context''s namespace)'
            cand --all-namespaces 'Every namespace (live: instead of the current context''s namespace)'
            cand --require-mirror 'Every image must be served by a mirror (a disconnected cluster): images pulled from their own registry (direct) or by tag past digest-only mirrors are errors. Implies `--fail-on error` unless --fail-on is given'
            cand --no-headers 'Leave out the header row of the table'
            cand --probe 'Contact the registries from this machine, as CRI-O would from a node: ping, authenticate and fetch the manifest from each pull source in order, and say which one serves the image (and, when the policy requires sigstore signatures, whether it has them)'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;diff'= {
            cand -f 'Cluster objects (mirror CRs, MachineConfigs, MachineConfigPools, Nodes) from files or a must-gather, instead of the live cluster. Repeatable'
            cand --filename 'Cluster objects (mirror CRs, MachineConfigs, MachineConfigPools, Nodes) from files or a must-gather, instead of the live cluster. Repeatable'
            cand --pool 'Only this pool (repeatable); default every pool'
            cand --node 'Only this node (repeatable)'
            cand --file 'Only this node file (repeatable), e.g. /etc/containers/registries.conf'
            cand --with 'Proposed CRs laid over the current ones (same kind and name replaces): shows what would change on the nodes and what the MCO would do. Repeatable'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;completion'= {
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;__complete'= {
            cand --color 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set'
            cand --kubeconfig 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)'
            cand --context 'The kubeconfig context to use'
            cand --cluster 'The kubeconfig cluster to use'
            cand --user 'The kubeconfig user to use'
            cand -n 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --namespace 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)'
            cand --request-timeout 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)'
            cand --chunk-size 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size'
            cand -v 'Say more on stderr: which files and objects were read, and what was skipped'
            cand --verbose 'Say more on stderr: which files and objects were read, and what was skipped'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kubectl-mirrorpolicy;help'= {
            cand explain 'Explain where CRI-O pulls IMAGE from: ordered pull sources, skipped mirrors, blocks, short-name candidates and signature policy. Exit 1 when an image''s pull would be refused or fail, 2 when a reference is invalid'
            cand render 'Render what the Machine Config Operator generates from the mirror CRs: registries.conf, policy.json, registries.d, namespace policies and the generated MachineConfig'
            cand lint 'Check mirror CRs before applying them: the API server''s CRD rules and the MCO''s own validation (which it only logs), plus warnings. Exit 1 when an error is found'
            cand list 'List the effective mirror rules after the MCO''s merge, with the objects behind each'
            cand migrate-icsp 'Convert ImageContentSourcePolicies to ImageDigestMirrorSets (as `oc adm migrate icsp`), prove the nodes see no change, and write them out or apply them to the cluster'
            cand audit 'Check every image that Pods, workload controllers and ClusterServiceVersions reference against the mirrors and policies: which will be served by a mirror, go to the source, fail, or need a signature'
            cand diff 'Compare what the CRs render, the generated MachineConfig, the pool''s rendered config and what each node runs; explain the drift and what the MCO will do on the nodes. Exit 1 on drift'
            cand completion 'Print a shell completion script for kubectl-mirrorpolicy (bash, zsh, fish, powershell, elvish). For `kubectl mirrorpolicy <TAB>`, install completions/kubectl_complete-mirrorpolicy'
            cand __complete 'kubectl''s plugin-completion protocol: candidates for the last of ARGS'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kubectl-mirrorpolicy;help;explain'= {
        }
        &'kubectl-mirrorpolicy;help;render'= {
        }
        &'kubectl-mirrorpolicy;help;lint'= {
        }
        &'kubectl-mirrorpolicy;help;list'= {
        }
        &'kubectl-mirrorpolicy;help;migrate-icsp'= {
        }
        &'kubectl-mirrorpolicy;help;audit'= {
        }
        &'kubectl-mirrorpolicy;help;diff'= {
        }
        &'kubectl-mirrorpolicy;help;completion'= {
        }
        &'kubectl-mirrorpolicy;help;__complete'= {
        }
        &'kubectl-mirrorpolicy;help;help'= {
        }
    ]
    $completions[$command]
}
