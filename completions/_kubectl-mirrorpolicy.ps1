
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-mirrorpolicy' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-mirrorpolicy'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-mirrorpolicy' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain where CRI-O pulls IMAGE from: ordered pull sources, skipped mirrors, blocks, short-name candidates and signature policy. Exit 1 when an image''s pull would be refused or fail, 2 when a reference is invalid')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render what the Machine Config Operator generates from the mirror CRs: registries.conf, policy.json, registries.d, namespace policies and the generated MachineConfig')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check mirror CRs before applying them: the API server''s CRD rules and the MCO''s own validation (which it only logs), plus warnings. Exit 1 when an error is found')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the effective mirror rules after the MCO''s merge, with the objects behind each')
            [CompletionResult]::new('migrate-icsp', 'migrate-icsp', [CompletionResultType]::ParameterValue, 'Convert ImageContentSourcePolicies to ImageDigestMirrorSets (as `oc adm migrate icsp`), prove the nodes see no change, and write them out or apply them to the cluster')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Check every image that Pods, workload controllers and ClusterServiceVersions reference against the mirrors and policies: which will be served by a mirror, go to the source, fail, or need a signature')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare what the CRs render, the generated MachineConfig, the pool''s rendered config and what each node runs; explain the drift and what the MCO will do on the nodes. Exit 1 on drift')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script for kubectl-mirrorpolicy (bash, zsh, fish, powershell, elvish). For `kubectl mirrorpolicy <TAB>`, install completions/kubectl_complete-mirrorpolicy')
            [CompletionResult]::new('__complete', '__complete', [CompletionResultType]::ParameterValue, 'kubectl''s plugin-completion protocol: candidates for the last of ARGS')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-mirrorpolicy;explain' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Cluster objects (ICSP, IDMS, ITMS, Image, ClusterImagePolicy, ...) from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Cluster objects (ICSP, IDMS, ITMS, Image, ClusterImagePolicy, ...) from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--pool', '--pool', [CompletionResultType]::ParameterName, 'The pool whose rendered configuration to use (cluster objects, not node files)')
            [CompletionResult]::new('--with', '--with', [CompletionResultType]::ParameterName, 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the cluster''s, same kind and name replacing: how would the image be pulled if they were applied? Repeatable')
            [CompletionResult]::new('--registries-conf', '--registries-conf', [CompletionResultType]::ParameterName, 'A registries.conf file, as /etc/containers/registries.conf on a node')
            [CompletionResult]::new('--registries-conf-d', '--registries-conf-d', [CompletionResultType]::ParameterName, 'A registries.conf.d folder of drop-ins (`*.conf`, read in lexical order, merged over the main file)')
            [CompletionResult]::new('--policy-json', '--policy-json', [CompletionResultType]::ParameterName, 'A policy.json file, as /etc/containers/policy.json on a node; without it no signature policy is shown')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Explain against this node''s own files (registries.conf, its drop-ins and policy.json), read from --node-files')
            [CompletionResult]::new('--node-files', '--node-files', [CompletionResultType]::ParameterName, 'The nodes'' files from a folder written by `collect-node-files` (DIR/<node>/etc/...); with --node')
            [CompletionResult]::new('--short-name-mode', '--short-name-mode', [CompletionResultType]::ParameterName, 'Override the short-name mode. Default with node files: their `short-name-mode` (permissive when unset), as podman without a terminal; with -f: CRI-O''s, enforcing from OpenShift 4.21 (CRI-O 1.34), disabled before, from the ClusterVersion when known')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--authfile', '--authfile', [CompletionResultType]::ParameterName, 'With --probe: the registry credentials (containers-auth.json or a Docker config.json), instead of REGISTRY_AUTH_FILE and containers/image''s default auth files')
            [CompletionResult]::new('--cert-dir', '--cert-dir', [CompletionResultType]::ParameterName, 'With --probe: a folder of certificates trusted for every registry, as skopeo''s and podman''s --cert-dir (`*.crt` CAs, `*.cert`/`*.key` client certificate pairs)')
            [CompletionResult]::new('--registries-d', '--registries-d', [CompletionResultType]::ParameterName, 'With --probe and node files: the registries.d folder whose `use-sigstore-attachments` decides where sigstore signatures are looked up (with -f, the MCO''s rendered one is used)')
            [CompletionResult]::new('--probe-timeout', '--probe-timeout', [CompletionResultType]::ParameterName, 'With --probe: seconds to wait for each registry request')
            [CompletionResult]::new('--probe-concurrency', '--probe-concurrency', [CompletionResultType]::ParameterName, 'With --probe: how many images are probed at once')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('--probe', '--probe', [CompletionResultType]::ParameterName, 'Contact the registries from this machine, as CRI-O would from a node: ping, authenticate and fetch the manifest from each pull source in order, and say which one serves the image (and, when the policy requires sigstore signatures, whether it has them)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;render' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--pool', '--pool', [CompletionResultType]::ParameterName, 'The pool to render for (the MCO writes one generated MachineConfig per built-in pool)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Print only this node file''s exact content (e.g. /etc/containers/registries.conf)')
            [CompletionResult]::new('--with', '--with', [CompletionResultType]::ParameterName, 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;lint' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--with', '--with', [CompletionResultType]::ParameterName, 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;list' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Cluster objects from files, folders (recursive, must-gather works as is) or `-` for stdin, instead of the live cluster. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--with', '--with', [CompletionResultType]::ParameterName, 'Proposed objects (IDMS, ITMS, ICSP, Image, image policies) laid over the current ones, same kind and name replacing: what if they were applied? Repeatable')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: table, wide (each mirror''s flags, conflicts in full), name (one source a line), json or yaml')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: table, wide (each mirror''s flags, conflicts in full), name (one source a line), json or yaml')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row of the table')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;migrate-icsp' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'ImageContentSourcePolicies (and the other mirror objects they live with) from files, folders or `-`, instead of the live cluster. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'ImageContentSourcePolicies (and the other mirror objects they live with) from files, folders or `-`, instead of the live cluster. Repeatable')
            [CompletionResult]::new('--dest-dir', '--dest-dir', [CompletionResultType]::ParameterName, 'Write one file per object into DIR (`imagedigestmirrorset_<name>.yaml`); an existing file with other content is never overwritten')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format on stdout')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format on stdout')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('--with-tag-mirrors', '--with-tag-mirrors', [CompletionResultType]::ParameterName, 'Also write an ImageTagMirrorSet per ICSP, so that pulls by tag use the mirrors too')
            [CompletionResult]::new('--apply', '--apply', [CompletionResultType]::ParameterName, 'Apply the replacements to the live cluster (server-side apply), after a server-side dry run and a confirmation')
            [CompletionResult]::new('--delete-icsp', '--delete-icsp', [CompletionResultType]::ParameterName, 'With --apply: delete each ICSP once its replacement is read back from the server as planned')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'With --apply: do not ask for confirmation')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'With --apply: do not ask for confirmation')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;audit' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Workloads and mirror objects from files, folders (a must-gather works as is) or `-`, instead of the live cluster; every namespace in them unless -n is given. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Workloads and mirror objects from files, folders (a must-gather works as is) or `-`, instead of the live cluster; every namespace in them unless -n is given. Repeatable; each input at most 256 MiB')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only the Pods, controllers and ClusterServiceVersions whose labels match, in kubectl''s syntax: key=value, key!=value, key in (a,b), key notin (a,b), key, !key; commas join requirements that must all match')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Only the Pods, controllers and ClusterServiceVersions whose labels match, in kubectl''s syntax: key=value, key!=value, key in (a,b), key notin (a,b), key, !key; commas join requirements that must all match')
            [CompletionResult]::new('--fail-on', '--fail-on', [CompletionResultType]::ParameterName, 'Exit 1 when an image is in a class of this level or worse: error (invalid, notAllowed, sourceBlocked, shortNameRefused, and with --probe missingOnMirror, unsignedOnMirror) or warning (also tagSkipsDigestMirrors, shortName); or in one of the classes named (comma-separated, camelCase or kebab-case: missingOnMirror or missing-on-mirror)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--authfile', '--authfile', [CompletionResultType]::ParameterName, 'With --probe: the registry credentials (containers-auth.json or a Docker config.json), instead of REGISTRY_AUTH_FILE and containers/image''s default auth files')
            [CompletionResult]::new('--cert-dir', '--cert-dir', [CompletionResultType]::ParameterName, 'With --probe: a folder of certificates trusted for every registry, as skopeo''s and podman''s --cert-dir (`*.crt` CAs, `*.cert`/`*.key` client certificate pairs)')
            [CompletionResult]::new('--registries-d', '--registries-d', [CompletionResultType]::ParameterName, 'With --probe and node files: the registries.d folder whose `use-sigstore-attachments` decides where sigstore signatures are looked up (with -f, the MCO''s rendered one is used)')
            [CompletionResult]::new('--probe-timeout', '--probe-timeout', [CompletionResultType]::ParameterName, 'With --probe: seconds to wait for each registry request')
            [CompletionResult]::new('--probe-concurrency', '--probe-concurrency', [CompletionResultType]::ParameterName, 'With --probe: how many images are probed at once')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Every namespace (live: instead of the current context''s namespace)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Every namespace (live: instead of the current context''s namespace)')
            [CompletionResult]::new('--require-mirror', '--require-mirror', [CompletionResultType]::ParameterName, 'Every image must be served by a mirror (a disconnected cluster): images pulled from their own registry (direct) or by tag past digest-only mirrors are errors. Implies `--fail-on error` unless --fail-on is given')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Leave out the header row of the table')
            [CompletionResult]::new('--probe', '--probe', [CompletionResultType]::ParameterName, 'Contact the registries from this machine, as CRI-O would from a node: ping, authenticate and fetch the manifest from each pull source in order, and say which one serves the image (and, when the policy requires sigstore signatures, whether it has them)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;diff' {
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Cluster objects (mirror CRs, MachineConfigs, MachineConfigPools, Nodes) from files or a must-gather, instead of the live cluster. Repeatable')
            [CompletionResult]::new('--filename', '--filename', [CompletionResultType]::ParameterName, 'Cluster objects (mirror CRs, MachineConfigs, MachineConfigPools, Nodes) from files or a must-gather, instead of the live cluster. Repeatable')
            [CompletionResult]::new('--pool', '--pool', [CompletionResultType]::ParameterName, 'Only this pool (repeatable); default every pool')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'Only this node (repeatable)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Only this node file (repeatable), e.g. /etc/containers/registries.conf')
            [CompletionResult]::new('--with', '--with', [CompletionResultType]::ParameterName, 'Proposed CRs laid over the current ones (same kind and name replaces): shows what would change on the nodes and what the MCO would do. Repeatable')
            [CompletionResult]::new('--node-files', '--node-files', [CompletionResultType]::ParameterName, 'The nodes'' files from a folder written by `collect-node-files` (DIR/<node>/etc/...), instead of reading them from the nodes; implies --on-disk')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('--on-disk', '--on-disk', [CompletionResultType]::ParameterName, 'Also compare the files on each node''s disk with the rendered MachineConfig it runs: hand-edited files, drop-ins no MachineConfig writes, registry CAs missing on a node')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;completion' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;__complete' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to colour the output: auto colours only a terminal, and never when NO_COLOR is set')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (instead of KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the API server, in place of the kubeconfig cluster''s (its CA stays; its tls-server-name does not)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server, in place of the kubeconfig user''s credential')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation (a user or system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation; repeat it for several groups')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate for the operation')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not check the server''s certificate (insecure); drops the kubeconfig''s CA')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'Path to a certificate file for the certificate authority, in place of the kubeconfig''s')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'Path to a client certificate file for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'Path to a client key file for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'Server name to use for server certificate validation (and SNI); without it, the host of the server URL')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace: explain applies its ImagePolicy (the pod''s namespace); audit reads only it (default there: the context''s namespace)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for each API request: 0 waits forever, else a number of seconds or a duration with a unit (500ms, 30s, 2m)')
            [CompletionResult]::new('--chunk-size', '--chunk-size', [CompletionResultType]::ParameterName, 'Read large lists in pages of this many objects (0: all at once), as kubectl''s --chunk-size')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Say more on stderr: which files and objects were read, and what was skipped')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-mirrorpolicy;help' {
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Explain where CRI-O pulls IMAGE from: ordered pull sources, skipped mirrors, blocks, short-name candidates and signature policy. Exit 1 when an image''s pull would be refused or fail, 2 when a reference is invalid')
            [CompletionResult]::new('render', 'render', [CompletionResultType]::ParameterValue, 'Render what the Machine Config Operator generates from the mirror CRs: registries.conf, policy.json, registries.d, namespace policies and the generated MachineConfig')
            [CompletionResult]::new('lint', 'lint', [CompletionResultType]::ParameterValue, 'Check mirror CRs before applying them: the API server''s CRD rules and the MCO''s own validation (which it only logs), plus warnings. Exit 1 when an error is found')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the effective mirror rules after the MCO''s merge, with the objects behind each')
            [CompletionResult]::new('migrate-icsp', 'migrate-icsp', [CompletionResultType]::ParameterValue, 'Convert ImageContentSourcePolicies to ImageDigestMirrorSets (as `oc adm migrate icsp`), prove the nodes see no change, and write them out or apply them to the cluster')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Check every image that Pods, workload controllers and ClusterServiceVersions reference against the mirrors and policies: which will be served by a mirror, go to the source, fail, or need a signature')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare what the CRs render, the generated MachineConfig, the pool''s rendered config and what each node runs; explain the drift and what the MCO will do on the nodes. Exit 1 on drift')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script for kubectl-mirrorpolicy (bash, zsh, fish, powershell, elvish). For `kubectl mirrorpolicy <TAB>`, install completions/kubectl_complete-mirrorpolicy')
            [CompletionResult]::new('__complete', '__complete', [CompletionResultType]::ParameterValue, 'kubectl''s plugin-completion protocol: candidates for the last of ARGS')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-mirrorpolicy;help;explain' {
            break
        }
        'kubectl-mirrorpolicy;help;render' {
            break
        }
        'kubectl-mirrorpolicy;help;lint' {
            break
        }
        'kubectl-mirrorpolicy;help;list' {
            break
        }
        'kubectl-mirrorpolicy;help;migrate-icsp' {
            break
        }
        'kubectl-mirrorpolicy;help;audit' {
            break
        }
        'kubectl-mirrorpolicy;help;diff' {
            break
        }
        'kubectl-mirrorpolicy;help;completion' {
            break
        }
        'kubectl-mirrorpolicy;help;__complete' {
            break
        }
        'kubectl-mirrorpolicy;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
