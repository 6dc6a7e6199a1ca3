//! The `kubectl-mirrorpolicy` binary: parse arguments, run the command, map
//! errors to the documented exit codes.

/// mimalloc: the registries.conf reader makes hundreds of thousands of
/// small allocations on oc-mirror-scale files; mimalloc roughly halves
/// whole-process time there (see BENCHMARKS.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    kubectl_mirrorpolicy::main()
}
