//! Cost of `Guard::check` on a typical call, against parsing the same input
//! with serde_json alone (the floor: the guard must parse anyway).

use serde_json::{json, Value};
use toolexec_guard::Guard;

fn main() {
    divan::main();
}

/// The built-in tools' schemas, so lookups run in a realistic map.
fn guard(full: bool) -> Guard {
    let mut guard = Guard::builder().full_validation(full).build();
    let string = json!({"type": "string"});
    let integer = json!({"type": "integer"});
    let boolean = json!({"type": "boolean"});
    let tools = [
        (
            "read",
            vec![("path", &string), ("offset", &integer), ("limit", &integer)],
            vec!["path"],
        ),
        (
            "write",
            vec![("path", &string), ("content", &string)],
            vec!["path", "content"],
        ),
        (
            "edit",
            vec![
                ("path", &string),
                ("old_string", &string),
                ("new_string", &string),
                ("replace_all", &boolean),
            ],
            vec!["path", "old_string", "new_string"],
        ),
        (
            "grep",
            vec![
                ("pattern", &string),
                ("path", &string),
                ("glob", &string),
                ("case_insensitive", &boolean),
                ("max_results", &integer),
            ],
            vec!["pattern"],
        ),
        (
            "glob",
            vec![("pattern", &string), ("path", &string)],
            vec!["pattern"],
        ),
        (
            "exec",
            vec![
                ("command", &string),
                ("timeout_ms", &integer),
                ("cwd", &string),
            ],
            vec!["command"],
        ),
        ("tool_search", vec![("query", &string)], vec!["query"]),
    ];
    for (name, properties, required) in tools {
        let properties: serde_json::Map<String, Value> = properties
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
        let schema = json!({"type": "object", "properties": properties, "required": required});
        guard
            .register(name, &schema)
            .expect("the built-in schemas compile");
    }
    guard.set_offered(Some(["read", "write", "edit", "grep", "glob", "exec"]));
    guard
}

const EDIT: &str = r#"{"path": "src/lib.rs", "old_string": "fn main() {\n    println!(\"hi\");\n}", "new_string": "fn main() {\n    println!(\"hello\");\n}"}"#;

#[divan::bench]
fn parse_only(bencher: divan::Bencher<'_, '_>) {
    bencher.bench(|| serde_json::from_str::<Value>(divan::black_box(EDIT)));
}

#[divan::bench(args = [false, true])]
fn check(bencher: divan::Bencher<'_, '_>, full: bool) {
    let guard = guard(full);
    assert!(guard.check("edit", EDIT).is_ok());
    bencher.bench(|| guard.check(divan::black_box("edit"), divan::black_box(EDIT)));
}

#[divan::bench]
fn check_unknown(bencher: divan::Bencher<'_, '_>) {
    let guard = guard(false);
    bencher.bench(|| guard.check(divan::black_box("rm_rf"), divan::black_box(EDIT)));
}

#[divan::bench]
fn check_missing_field(bencher: divan::Bencher<'_, '_>) {
    let guard = guard(false);
    bencher.bench(|| {
        guard.check(
            divan::black_box("edit"),
            divan::black_box(r#"{"path": "a"}"#),
        )
    });
}
