# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_mirrorpolicy_global_optspecs
    string join \n color= v/verbose kubeconfig= context= all-contexts hub= hub-selector= skip-unavailable hub-ca= context-concurrency= context-timeout= cluster= user= s/server= token= as= as-group= as-uid= insecure-skip-tls-verify= certificate-authority= client-certificate= client-key= tls-server-name= n/namespace= request-timeout= chunk-size= h/help V/version
end

function __fish_kubectl_mirrorpolicy_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_mirrorpolicy_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_mirrorpolicy_using_subcommand
    set -l cmd (__fish_kubectl_mirrorpolicy_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "explain" -d 'Explain where CRI-O pulls IMAGE from: ordered pull sources, skipped mirrors, blocks, short-name candidates and signature policy. Exit 1 when an image\'s pull would be refused or fail, 2 when a reference is invalid'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "render" -d 'Render what the Machine Config Operator generates from the mirror CRs: registries.conf, policy.json, registries.d, namespace policies and the generated MachineConfig'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "lint" -d 'Check mirror CRs before applying them: the API server\'s CRD rules and the MCO\'s own validation (which it only logs), plus warnings. Exit 1 when an error is found'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "list" -d 'List the effective mirror rules after the MCO\'s merge, with the objects behind each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "migrate-icsp" -d 'Convert ImageContentSourcePolicies to ImageDigestMirrorSets (as `oc adm migrate icsp`), prove the nodes see no change, and write them out or apply them to the cluster'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "audit" -d 'Check every image that Pods, workload controllers, ClusterServiceVersions (not the copies OLM makes) and CatalogSources reference against the mirrors and policies: which will be served by a mirror, go to the source, fail, or need a signature'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "diff" -d 'Compare what the CRs render, the generated MachineConfig, the pool\'s rendered config and what each node runs; explain the drift and what the MCO will do on the nodes. Exit 1 on drift'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "collect-node-files" -d 'Copy the mirror-configuration files each node really holds (registries.conf, drop-ins, policy.json, registries.d, CRI-O namespace policies, the daemon\'s currentconfig, and the SHA-256 of the certs.d files) into DIR/<node>/<host path>, read through the node\'s machine-config-daemon pod. Exit 3 when a node could not be read (the others are written)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "upgrade-check" -d 'Check that an update to a release will pull through the cluster\'s own mirrors: the payload and every component image it names, probed on the sources CRI-O on a control-plane node walks. Exit 0 ready, 1 not ready (an image missing, unsigned where required, or refused), 2 bad input, 3 undetermined (a registry or the cluster did not answer)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "operator-check" -d 'Check that an operator\'s install or update will pull through the cluster\'s own mirrors: the catalog image read as CRI-O pulls it, OLM\'s update path from the installed CSV, and every bundle, operator and related image of each hop probed. Exit 0 ready, 1 not ready, 2 bad input, 3 undetermined'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "completion" -d 'Print a shell completion script for kubectl-mirrorpolicy (bash, zsh, fish, powershell, elvish). For `kubectl mirrorpolicy <TAB>`, install completions/kubectl_complete-mirrorpolicy'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "__complete" -d 'kubectl\'s plugin-completion protocol: candidates for the last of ARGS'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -s f -l filename -d 'Cluster objects (ICSP, IDMS, ITMS, Image, ClusterImagePolicy, ...) from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l pool -d 'The pool whose rendered configuration to use (cluster objects, not node files)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l with -d 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the cluster\'s, same kind and name replacing: how would the image be pulled if they were applied? Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l registries-conf -d 'A registries.conf file, as /etc/containers/registries.conf on a node' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l registries-conf-d -d 'A registries.conf.d folder of drop-ins (`*.conf`, read in lexical order, merged over the main file)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l policy-json -d 'A policy.json file, as /etc/containers/policy.json on a node; without it no signature policy is shown' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l short-name-aliases -d 'The machine-written short-name-aliases.conf, as /var/cache/containers/short-name-aliases.conf on a node (CRI-O and root podman read it; rootless podman reads ~/.cache/containers/short-name-aliases.conf): its aliases win over the registries.conf ones, `""` erasing one. With --registries-conf or --registries-conf-d' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l node -d 'Explain against this node\'s own files (registries.conf, its drop-ins and policy.json): read through the node\'s machine-config-daemon pod, or from --node-files. With --node-files, -f reads the node\'s Node (and the ClusterVersion) for its CRI-O version' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l node-files -d 'The nodes\' files from a folder written by `collect-node-files` (DIR/<node>/etc/...); with --node' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l node-timeout -d 'With --node, read live: the limit on reading the node\'s files (a duration such as 30s or 2m; default 60s). Refused with --node-files, which reads no node' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l crio-version -d 'The CRI-O version that reads the node files (1.35, 1.34.2): CRI-O 1.35 and later read registries.conf as TOML 1.1, 1.22-1.34 as TOML 1.0, 1.21 and earlier as TOML 0.4. Default with --node: the Node\'s containerRuntimeVersion, else the ClusterVersion\'s release (-f, with --node-files); when unknown, the files are read as every release reads them, and where they disagree the answer is undetermined (exit 3)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l short-name-mode -d 'Override the short-name mode. Default with node files: their `short-name-mode` (permissive when unset), as podman without a terminal; with -f: CRI-O\'s, enforcing from OpenShift 4.21 (CRI-O 1.34), disabled before, from the ClusterVersion when known' -r -f -a "enforcing\t''
permissive\t''
disabled\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''
yaml\t''
summary\t'With several clusters (or for the current context): one line per cluster, its verdict and counts, and a total'"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l journal-file -d 'Replay a CRI-O pull log against the explanation: a file of `oc adm node-logs NODE -u crio` output (several nodes\' merged output too: the host column names the node; with --node, that node\'s lines; gzip too), or a must-gather folder\'s journal files. Each pull of the image found is judged against the expected source order: exit 1 when one diverges, 3 when one cannot be judged' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l since -d 'With --journal or --journal-file: the start of the window, a duration back from now (2h, 30m, 90s, 1d) or YYYY-MM-DD HH:MM:SS in UTC; only the pulls whose `Pulling image` line is in the window count. Live, default 1h (the kubelet stops journalctl after 30s: keep it short); files, default their start' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l until -d 'With --journal or --journal-file: the end of the window (same forms as --since); default now' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l authfile -d 'With --probe: the registry credentials (containers-auth.json or a Docker config.json), instead of REGISTRY_AUTH_FILE and containers/image\'s default auth files' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l cert-dir -d 'With --probe: a folder of certificates trusted for every registry, as skopeo\'s and podman\'s --cert-dir (`*.crt` CAs, `*.cert`/`*.key` client certificate pairs)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l registries-d -d 'With --probe and node files: the registries.d folder whose `use-sigstore-attachments` decides where sigstore signatures are looked up (with -f, the MCO\'s rendered one is used)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l probe-timeout -d 'With --probe: seconds to wait for a registry\'s answer once connected (a connection is given up after 30s, as CRI-O gives it up). CRI-O itself waits for an answer without limit: a source that does not answer in time leaves the result undetermined (exit 3)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l probe-concurrency -d 'With --probe: how many images are probed at once' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l journal -d 'With --node: replay the node\'s CRI-O pull log, read live as `oc adm node-logs NODE -u crio` reads it (needs `get nodes/proxy`, which is effectively exec on the node; when that is forbidden, the pull events of the image are read instead). With -f MUST_GATHER: the must-gather\'s journal files (host_service_logs/*/crio_service.log)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l probe -d 'Contact the registries from this machine, as CRI-O would from a node: ping, authenticate and fetch the manifest from each pull source in order, and say which one serves the image (and, when the policy requires sigstore signatures, whether it has them)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand explain" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -s f -l filename -d 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l pool -d 'The pool to render for (the MCO writes one generated MachineConfig per built-in pool; a custom pool\'s nodes get the worker\'s, which is rendered)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l file -d 'Print only this node file\'s exact content (e.g. /etc/containers/registries.conf)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l with -d 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -s o -l output -d 'Output format' -r -f -a "files\t'Each file under a `==> PATH <==` header'
machineconfig\t'The generated MachineConfig object as YAML'
json\t'Files, MachineConfig and warnings as JSON'"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand render" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -s f -l filename -d 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l with -d 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l crd -d 'CustomResourceDefinition manifests (files or folders) whose schemas the objects\' fields are checked against, in place of the live cluster\'s or a must-gather\'s. Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -s o -l output -d 'Output format' -r -f -a "table\t''
json\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand lint" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -s f -l filename -d 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l with -d 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -s o -l output -d 'Output format: table, wide (each mirror\'s flags, conflicts in full), name (one source a line), json or yaml' -r -f -a "table\t''
wide\t'Each mirror\'s pull-from-mirror and insecure flag, and the conflicts in full; with several contexts, one table with a CONTEXT column'
name\t''
json\t''
yaml\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l no-headers -d 'Leave out the header row of the table'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand list" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -s f -l filename -d 'ImageContentSourcePolicies (and the other mirror objects they live with) from files, folders or `-`, instead of the live cluster. Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l dest-dir -d 'Write one file per object into DIR (`imagedigestmirrorset_<name>.yaml`); an existing file with other content is never overwritten' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l timeout -d 'With --delete-icsp: how long to wait for the deleted ICSPs to go, as `kubectl delete` waits (an ICSP that finalizers hold is only marked for deletion until they are removed); a duration such as 30s or 2m [default: 60s]' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -s o -l output -d 'Output format on stdout' -r -f -a "yaml\t'Multi-document YAML, as `oc adm migrate icsp` writes it'
json\t'One object, or a `v1` `List` of them as `kubectl get -o json` prints it'"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l with-tag-mirrors -d 'Also write an ImageTagMirrorSet per ICSP, so that pulls by tag use the mirrors too'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l apply -d 'Apply the replacements to the live cluster (server-side apply), after a server-side dry run and a confirmation'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l delete-icsp -d 'With --apply: delete each ICSP once its replacement is read back from the server as planned'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -s y -l yes -d 'With --apply: do not ask for confirmation'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l keep-labels -d 'Copy the GitOps tracking labels and annotations (Argo CD `app.kubernetes.io/instance`, `argocd.argoproj.io/tracking-id`; Flux `kustomize.toolkit.fluxcd.io/*`, `helm.toolkit.fluxcd.io/*`) to the replacements; by default they stay with the ICSP, as the replacements are in no GitOps source (a tool would prune them or claim them)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand migrate-icsp" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s f -l filename -d 'Workloads and mirror objects from files, folders (a must-gather works as is) or `-`, instead of the live cluster; every namespace in them unless -n is given. Repeatable; each input at most 256 MiB' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s l -l selector -d 'Only the Pods, controllers, ClusterServiceVersions and CatalogSources whose labels match, in kubectl\'s syntax: key=value, key!=value, key in (a,b), key notin (a,b), key, !key; commas join requirements that must all match' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l fail-on -d 'Exit 1 when an image is in a class of this level or worse: error (invalid, notAllowed, sourceBlocked, shortNameRefused, and with --probe missingOnMirror, unsignedOnMirror) or warning (also tagSkipsDigestMirrors, shortName); or in one of the classes named (comma-separated, camelCase or kebab-case: missingOnMirror or missing-on-mirror). An undetermined image (--probe: a source did not answer) exits 3 unless named here' -r -f -a "error\t'Images that will not pull: every class of the error level'
warning\t'Also images that reach the source or resolve a short name'
invalid\t''
notAllowed\t''
sourceBlocked\t''
shortNameRefused\t''
missingOnMirror\t'With --probe: no source serves the image'
unsignedOnMirror\t'With --probe: served without the sigstore signature its policy requires'
undetermined\t'With --probe: a source did not answer in time (CRI-O would keep waiting on it)'
tagSkipsDigestMirrors\t''
shortName\t''
direct\t''
mirrored\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s o -l output -d 'Output format' -r -f -a "table\t''
wide\t'All the objects behind each image; with several contexts, one table with a CONTEXT column'
json\t''
yaml\t''
summary\t'With several clusters (or for the current context): one line per cluster, its verdict and counts, and a total'"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l journal-file -d 'Instead of the workloads: every pull in a CRI-O pull log (`oc adm node-logs NODE -u crio` output, several nodes\' merged output too, gzip too, or a must-gather folder\'s journal files), grouped by image and judged against each node\'s pool\'s configuration (--pool), diverging images first: which sources served, which mirrors never did. Exit 1 when a pull diverges, 3 when one cannot be judged' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l since -d 'With --journal or --journal-file: the start of the window, a duration back from now (2h, 30m, 90s, 1d) or YYYY-MM-DD HH:MM:SS in UTC; only the pulls whose `Pulling image` line is in the window count. Live, default 1h (the kubelet stops journalctl after 30s: keep it short); files, default their start' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l until -d 'With --journal or --journal-file: the end of the window (same forms as --since); default now' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l node -d 'With --journal or --journal-file: only these nodes (comma-separated; the journal\'s host column is the node\'s name or its first label)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l pool -d 'With --journal or --journal-file: judge every pull against this MachineConfigPool\'s configuration (live --journal: read the logs of its nodes only). Default: each node against its own pool (from its rendered config, the pools\' nodeSelectors, its role label), or worker when the input has no Node objects' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l node-concurrency -d 'With --journal, live: how many nodes\' logs are read at one time' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l authfile -d 'With --probe: the registry credentials (containers-auth.json or a Docker config.json), instead of REGISTRY_AUTH_FILE and containers/image\'s default auth files' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l cert-dir -d 'With --probe: a folder of certificates trusted for every registry, as skopeo\'s and podman\'s --cert-dir (`*.crt` CAs, `*.cert`/`*.key` client certificate pairs)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l registries-d -d 'With --probe and node files: the registries.d folder whose `use-sigstore-attachments` decides where sigstore signatures are looked up (with -f, the MCO\'s rendered one is used)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l probe-timeout -d 'With --probe: seconds to wait for a registry\'s answer once connected (a connection is given up after 30s, as CRI-O gives it up). CRI-O itself waits for an answer without limit: a source that does not answer in time leaves the result undetermined (exit 3)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l probe-concurrency -d 'With --probe: how many images are probed at once' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s A -l all-namespaces -d 'Every namespace (live: instead of the current context\'s namespace)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l require-mirror -d 'Every image must be served by a mirror (a disconnected cluster): images pulled from their own registry (direct) or by tag past digest-only mirrors are errors. Implies `--fail-on error` unless --fail-on is given'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l no-headers -d 'Leave out the header row of the table'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l journal -d 'Instead of the workloads: every pull in the CRI-O pull logs of the cluster\'s nodes, read live as `oc adm node-logs NODE -u crio` reads them (needs `get nodes/proxy`, which is effectively exec on the node), or with -f MUST_GATHER its journal files (host_service_logs/*/crio_service.log). Each node is judged against its own pool\'s configuration; a node whose log cannot be read or was cut is named, exit 3'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l probe -d 'Contact the registries from this machine, as CRI-O would from a node: ping, authenticate and fetch the manifest from each pull source in order, and say which one serves the image (and, when the policy requires sigstore signatures, whether it has them)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand audit" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -s f -l filename -d 'Cluster objects (mirror CRs, MachineConfigs, MachineConfigPools, Nodes) from files or a must-gather, instead of the live cluster. Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l pool -d 'Only this pool (repeatable); default every pool' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l node -d 'Only this node (repeatable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l file -d 'Only this node file (repeatable), e.g. /etc/containers/registries.conf' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l with -d 'Proposed CRs laid over the current ones (same kind and name replaces): shows what would change on the nodes and what the MCO would do. Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l node-files -d 'The nodes\' files from a folder written by `collect-node-files` (DIR/<node>/etc/...), instead of reading them from the nodes; implies --on-disk' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l node-concurrency -d 'How many nodes are read at one time' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l node-timeout -d 'The limit on reading one node (a duration such as 30s or 2m); a node that takes longer is reported as not read and the others go on' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -s o -l output -d 'Output format' -r -f -a "text\t''
json\t''
summary\t'With several clusters (or for the current context): one line per cluster, its verdict and counts, and a total'"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l on-disk -d 'Also compare the files on each node\'s disk with the rendered MachineConfig it runs: hand-edited files, drop-ins no MachineConfig writes, registry CAs missing on a node'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand diff" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l node -d 'Only this node (repeatable); with neither --node nor --pool, every node' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l pool -d 'The nodes of this pool (repeatable): the nodes whose current config is the pool\'s (rendered-POOL-...)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l dest-dir -d 'The folder to write DIR/<node>/etc/... and DIR/<node>/certs.sha256 into; created if missing. A node folder that already exists is never replaced' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l node-concurrency -d 'How many nodes are read at one time' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l node-timeout -d 'The limit on reading one node (a duration such as 30s or 2m); a node that takes longer is reported as not read and the others go on' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand collect-node-files" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l to -d 'The version to update to, as `oc adm upgrade --to`: one of ClusterVersion status.availableUpdates or status.conditionalUpdates (whose risks are shown)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l to-image -d 'The release payload to update to, as `oc adm upgrade --to-image`: a pull spec by digest (a tag is resolved on the source that serves it, and the digest reported)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -s f -l filename -d 'Cluster objects (mirror sets, Image config, image policies, ClusterVersion, Nodes) from files or a must-gather, instead of the live cluster; the registries are still probed from this machine. Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l arch -d 'The control plane\'s architecture (amd64, arm64, ppc64le, s390x): picks the image of a multi-architecture payload, and a payload without one for it is not ready; default the control-plane Nodes\' kubernetes.io/arch' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l authfile -d 'The registry credentials (containers-auth.json or a Docker config.json), instead of the cluster\'s pull secret (live) or containers/image\'s default auth files (-f)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l cert-dir -d 'A folder of certificates trusted for every registry, as skopeo\'s --cert-dir (`*.crt` CAs, `*.cert`/`*.key` client certificate pairs), besides the cluster\'s additionalTrustedCA' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l probe-timeout -d 'Seconds to wait for each registry request' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l probe-concurrency -d 'How many images are probed at once (a mirror registry answers many at a time)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -s o -l output -d 'Output format' -r -f -a "table\t'The summary, the failing images and the next steps'
wide\t'The same with every image'
json\t''
yaml\t''
summary\t'With several clusters (or for the current context): one line per cluster, its verdict and counts, and a total'"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l no-headers -d 'Leave out the header row of the table'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand upgrade-check" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -s f -l filename -d 'Cluster objects (Subscriptions, CatalogSources, ClusterServiceVersions, mirror sets, Image config) from files, folders or a must-gather; the registries are probed from this machine. Repeatable' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l catalog-image -d 'The catalog image to read, instead of the CatalogSource\'s spec.image' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l package -d 'Check this package as a Subscription would (with --catalog-image), instead of the Subscriptions read' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l channel -d 'With --package: the channel (default: every channel, the default channel first, as OLM reads a Subscription without one)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l installed -d 'With --package: the installed CSV to update from' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l starting-csv -d 'With --package: install this CSV first (a Subscription\'s spec.startingCSV)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l to -d 'Stop the update path at this CSV instead of the channel head' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l max-hops -d 'Stop the update path after this many hops' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l arch -d 'For a multi-architecture catalog: the architecture to read (amd64, arm64, ppc64le, s390x); default the worker Nodes\' kubernetes.io/arch' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l authfile -d 'The registry credentials (containers-auth.json or a Docker config.json), instead of containers/image\'s default auth files' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l cert-dir -d 'A folder of certificates trusted for every registry, as skopeo\'s --cert-dir' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l probe-timeout -d 'Seconds to wait for each registry request' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l probe-concurrency -d 'How many images are probed at once' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -s o -l output -d 'Output format' -r -f -a "table\t'Each Subscription\'s verdict, its path, the images that fail, and the next steps'
json\t''
yaml\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l operands -d 'Count the relatedImages (operands) of every hop, not only of the last'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l no-headers -d 'Leave out the header row of the tables'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand operator-check" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand completion" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l color -d 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l kubeconfig -d 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l context -d 'The kubeconfig context to use; several (repeated, or a comma list) read those clusters at once, one section each' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l hub -d 'Read every ManagedCluster of the Open Cluster Management (ACM) hub of this kubeconfig context, each through the hub\'s cluster-proxy add-on, one section each; one the hub reports unavailable or has not accepted is reported so, without a request (exit 3 unless --skip-unavailable)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l hub-selector -d 'With --hub: only the ManagedClusters this label selector selects (key=value, key!=value, key in (a,b), ...); when it selects none, nothing is read (exit 0, an empty List)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l hub-ca -d 'With --hub: the CA bundle (PEM) that signed the certificate of the hub\'s cluster-proxy Route, in place of the hub\'s ingress CA (ConfigMap default-ingress-cert in openshift-config-managed)' -r -F
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l context-concurrency -d 'With several contexts: how many clusters to read at the same time (32: 3,000 clusters at 100 ms per request in about 10 s and 75 MiB; see BENCHMARKS.md)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l context-timeout -d 'With several contexts: how long one cluster may take before it is reported as not read (0 waits forever; a number of seconds or a duration such as 90s or 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -s s -l server -d 'The address and port of the API server, in place of the kubeconfig cluster\'s (its CA stays; its tls-server-name does not)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l token -d 'Bearer token for authentication to the API server, in place of the kubeconfig user\'s credential' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l as -d 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l as-group -d 'Group to impersonate for the operation; repeat it for several groups' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l as-uid -d 'UID to impersonate for the operation' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l insecure-skip-tls-verify -d 'Do not check the server\'s certificate (insecure); drops the kubeconfig\'s CA' -r -f -a "true\t''
false\t''"
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l certificate-authority -d 'Path to a certificate file for the certificate authority, in place of the kubeconfig\'s' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l client-certificate -d 'Path to a client certificate file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l client-key -d 'Path to a client key file for TLS' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l tls-server-name -d 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -s n -l namespace -d 'The namespace: explain applies its ImagePolicy (the pod\'s namespace); audit reads only it (default there: the context\'s namespace)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l request-timeout -d 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l chunk-size -d 'Read large lists in pages of this many objects (0: all at once), as kubectl\'s --chunk-size' -r
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -s v -l verbose -d 'Say more on stderr: which files and objects were read, and what was skipped'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l all-contexts -d 'Read the cluster of every context of the kubeconfig at once, one section each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -l skip-unavailable -d 'With --hub: a ManagedCluster the hub reports unavailable (ManagedClusterConditionAvailable not True) or has not accepted (spec.hubAcceptsClient false) is still reported, but does not make the exit code 3; the exit code is that of the clusters read'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -s h -l help -d 'Print help'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand __complete" -s V -l version -d 'Print version'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "explain" -d 'Explain where CRI-O pulls IMAGE from: ordered pull sources, skipped mirrors, blocks, short-name candidates and signature policy. Exit 1 when an image\'s pull would be refused or fail, 2 when a reference is invalid'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "render" -d 'Render what the Machine Config Operator generates from the mirror CRs: registries.conf, policy.json, registries.d, namespace policies and the generated MachineConfig'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "lint" -d 'Check mirror CRs before applying them: the API server\'s CRD rules and the MCO\'s own validation (which it only logs), plus warnings. Exit 1 when an error is found'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "list" -d 'List the effective mirror rules after the MCO\'s merge, with the objects behind each'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "migrate-icsp" -d 'Convert ImageContentSourcePolicies to ImageDigestMirrorSets (as `oc adm migrate icsp`), prove the nodes see no change, and write them out or apply them to the cluster'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "audit" -d 'Check every image that Pods, workload controllers, ClusterServiceVersions (not the copies OLM makes) and CatalogSources reference against the mirrors and policies: which will be served by a mirror, go to the source, fail, or need a signature'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "diff" -d 'Compare what the CRs render, the generated MachineConfig, the pool\'s rendered config and what each node runs; explain the drift and what the MCO will do on the nodes. Exit 1 on drift'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "collect-node-files" -d 'Copy the mirror-configuration files each node really holds (registries.conf, drop-ins, policy.json, registries.d, CRI-O namespace policies, the daemon\'s currentconfig, and the SHA-256 of the certs.d files) into DIR/<node>/<host path>, read through the node\'s machine-config-daemon pod. Exit 3 when a node could not be read (the others are written)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "upgrade-check" -d 'Check that an update to a release will pull through the cluster\'s own mirrors: the payload and every component image it names, probed on the sources CRI-O on a control-plane node walks. Exit 0 ready, 1 not ready (an image missing, unsigned where required, or refused), 2 bad input, 3 undetermined (a registry or the cluster did not answer)'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "operator-check" -d 'Check that an operator\'s install or update will pull through the cluster\'s own mirrors: the catalog image read as CRI-O pulls it, OLM\'s update path from the installed CSV, and every bundle, operator and related image of each hop probed. Exit 0 ready, 1 not ready, 2 bad input, 3 undetermined'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "completion" -d 'Print a shell completion script for kubectl-mirrorpolicy (bash, zsh, fish, powershell, elvish). For `kubectl mirrorpolicy <TAB>`, install completions/kubectl_complete-mirrorpolicy'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "__complete" -d 'kubectl\'s plugin-completion protocol: candidates for the last of ARGS'
complete -c kubectl-mirrorpolicy -n "__fish_kubectl_mirrorpolicy_using_subcommand help; and not __fish_seen_subcommand_from explain render lint list migrate-icsp audit diff collect-node-files upgrade-check operator-check completion __complete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
