//! Loading a 20,000-entry registries.conf and resolving one reference.

#[path = "support/generate.rs"]
mod generate;

use criterion::{criterion_group, criterion_main, Criterion};

use mirrorpolicy::reference::Reference;
use mirrorpolicy::registries::{self, lookup, ConfigFile};

const ENTRIES: usize = 20_000;

fn bench(c: &mut Criterion) {
    let text = generate::registries_conf(ENTRIES);
    let file = ConfigFile {
        name: "registries.conf",
        text: &text,
    };
    c.bench_function("load registries.conf, 20000 entries", |b| {
        b.iter(|| registries::load(Some(&file), &[]).expect("generated file loads"))
    });
    let conf = registries::load(Some(&file), &[]).expect("generated file loads");
    let reference = Reference::parse_normalized_named(&generate::last_reference(ENTRIES))
        .expect("generated reference parses");
    c.bench_function("resolve one reference, 20000 entries", |b| {
        b.iter(|| {
            let r = lookup::find_registry(&conf, &reference.name()).expect("matches");
            lookup::pull_sources(r, &reference).expect("rewrites")
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
