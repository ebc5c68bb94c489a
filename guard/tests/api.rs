//! Public API of toolexec-guard: the exact messages and order of SPEC §2.2,
//! full mode, registration errors, and properties.

use std::io::ErrorKind;
use std::net::TcpListener;

use serde_json::{json, Value};
use toolexec_guard::{Guard, GuardError, Rejection, MAX_REPORTED_VIOLATIONS};

const NOT_OFFERED_TAIL: &str = " is not available in this turn. Use tool_search to find available tools, or use one of the tools in the current list.";

fn read_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "offset": {"type": "integer", "minimum": 1},
            "limit": {"type": "integer"}
        },
        "required": ["path"]
    })
}

fn edit_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "old_string": {"type": "string"},
            "new_string": {"type": "string"},
            "replace_all": {"type": "boolean"}
        },
        "required": ["path", "old_string", "new_string"]
    })
}

/// read, edit and a schema-less `ping`, everything offered.
fn guard() -> Guard {
    let mut guard = Guard::new();
    guard.register("read", &read_schema()).unwrap();
    guard.register("edit", &edit_schema()).unwrap();
    guard.register("ping", &json!({})).unwrap();
    guard
}

fn message(result: Result<Value, Rejection>) -> String {
    result.unwrap_err().to_string()
}

// ---------------------------------------------------------------- messages

#[test]
fn unknown_tool_message() {
    let err = guard().check("rm_rf", "{}").unwrap_err();
    assert_eq!(err.to_string(), "unknown tool: rm_rf");
    assert_eq!(
        err,
        Rejection::UnknownTool {
            tool: "rm_rf".into()
        }
    );
    assert_eq!(err.tool(), "rm_rf");
    // Names are taken as they are: no trimming, no case folding.
    assert_eq!(message(guard().check("", "{}")), "unknown tool: ");
    assert_eq!(message(guard().check("Read", "{}")), "unknown tool: Read");
    assert_eq!(message(guard().check("read ", "{}")), "unknown tool: read ");
}

#[test]
fn disabled_message() {
    let mut guard = guard();
    guard.set_disabled(["edit"]);
    let err = guard.check("edit", "{}").unwrap_err();
    assert_eq!(err.to_string(), "tool edit is disabled");
    assert!(matches!(err, Rejection::Disabled { ref tool } if tool == "edit"));
    assert!(guard.is_disabled("edit"));
    assert!(guard.check("read", r#"{"path":"a"}"#).is_ok());
}

#[test]
fn not_offered_message() {
    let mut guard = guard();
    guard.set_offered(Some(vec!["read".to_owned()]));
    let err = guard.check("edit", "{}").unwrap_err();
    assert_eq!(
        err.to_string(),
        "tool edit is not available in this turn. Use tool_search to find available tools, or use one of the tools in the current list."
    );
    assert!(matches!(err, Rejection::NotOffered { ref tool } if tool == "edit"));
    assert!(guard.check("read", r#"{"path":"a"}"#).is_ok());
    assert!(!guard.is_offered("edit"));
    assert!(guard.is_offered("read"));
}

#[test]
fn invalid_json_messages() {
    let guard = guard();
    let cases = [
        ("x", "expected value at line 1 column 1"),
        ("", "EOF while parsing a value at line 1 column 0"),
        ("   ", "EOF while parsing a value at line 1 column 3"),
        ("{", "EOF while parsing an object at line 1 column 1"),
        (
            r#"{"path": "a"} x"#,
            "trailing characters at line 1 column 15",
        ),
        (
            r#"{"path": "a"}{}"#,
            "trailing characters at line 1 column 14",
        ),
        (r#"{"path": "a",}"#, "trailing comma at line 1 column 14"),
        ("{'path': 'a'}", "key must be a string at line 1 column 2"),
        ("{path: \"a\"}", "key must be a string at line 1 column 2"),
        (
            "{\"path\":\n \"a\"\n  ,\"offset\": True}",
            "expected value at line 3 column 14",
        ),
    ];
    for (input, detail) in cases {
        let err = guard.check("read", input).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("tool read: invalid input: {detail}"),
            "input {input:?}"
        );
        assert_eq!(
            err,
            Rejection::InvalidJson {
                tool: "read".into(),
                detail: detail.into()
            }
        );
    }
}

#[test]
fn invalid_json_is_never_repaired_even_without_required_fields() {
    // `ping` has no required fields: nothing but the parser stands between
    // the text and the tool, and it still refuses near-JSON.
    let guard = guard();
    for input in [
        "",
        "{",
        "{}}",
        "{} {}",
        "{\"a\":1,}",
        "[1,2,]",
        "NaN",
        "'x'",
        "{a:1}",
    ] {
        assert!(
            matches!(
                guard.check("ping", input),
                Err(Rejection::InvalidJson { .. })
            ),
            "input {input:?} was accepted"
        );
    }
}

#[test]
fn missing_required_field_message() {
    let guard = guard();
    let err = guard.check("read", r#"{"offset": 3}"#).unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"tool read: invalid input: missing required field "path""#
    );
    assert_eq!(
        err,
        Rejection::MissingField {
            tool: "read".into(),
            field: "path".into()
        }
    );
}

#[test]
fn first_missing_field_in_schema_order() {
    let guard = guard();
    let cases = [
        ("{}", "path"),
        (r#"{"new_string": "b"}"#, "path"),
        (r#"{"path": "a", "new_string": "b"}"#, "old_string"),
        (r#"{"old_string": "a", "path": "p"}"#, "new_string"),
    ];
    for (input, field) in cases {
        assert_eq!(
            message(guard.check("edit", input)),
            format!("tool edit: invalid input: missing required field \"{field}\""),
            "input {input}"
        );
    }
    // A schema whose required order differs from alphabetical order.
    let mut guard = Guard::new();
    guard
        .register("t", &json!({"required": ["zeta", "alpha", "mid"]}))
        .unwrap();
    assert_eq!(
        guard.required_fields("t").unwrap(),
        ["zeta".to_owned(), "alpha".to_owned(), "mid".to_owned()]
    );
    assert_eq!(
        message(guard.check("t", r#"{"mid": 1}"#)),
        r#"tool t: invalid input: missing required field "zeta""#
    );
    assert_eq!(
        message(guard.check("t", r#"{"zeta": 1, "mid": 1}"#)),
        r#"tool t: invalid input: missing required field "alpha""#
    );
}

#[test]
fn present_fields_pass_whatever_their_value_and_types_are_not_checked() {
    let guard = guard();
    // null counts as present; wrong types are the tool's business by default.
    let input = guard
        .check("read", r#"{"path": null, "offset": "x", "extra": [1]}"#)
        .unwrap();
    assert_eq!(input, json!({"path": null, "offset": "x", "extra": [1]}));
    // Nested required lists are not looked at in the default mode.
    let mut guard = Guard::new();
    guard
        .register(
            "n",
            &json!({"properties": {"o": {"type": "object", "required": ["inner"]}}}),
        )
        .unwrap();
    assert!(guard.check("n", r#"{"o": {}}"#).is_ok());
}

#[test]
fn non_object_input() {
    let guard = guard();
    for input in ["[]", "\"x\"", "null", "3", "true", r#"["path"]"#] {
        assert_eq!(
            message(guard.check("read", input)),
            r#"tool read: invalid input: missing required field "path""#,
            "input {input}"
        );
        // No required fields: passes, the tool judges the type.
        assert_eq!(
            guard.check("ping", input).unwrap(),
            serde_json::from_str::<Value>(input).unwrap()
        );
    }
}

#[test]
fn accepted_input_is_the_parsed_value() {
    let guard = guard();
    let raw = r#"  {"path": "src/é.rs", "offset": 2, "limit": 1e3}
"#;
    assert_eq!(
        guard.check("read", raw).unwrap(),
        serde_json::from_str::<Value>(raw).unwrap()
    );
}

// ---------------------------------------------------------------- order

#[test]
fn unknown_beats_everything() {
    let mut guard = guard();
    guard.set_disabled(["ghost"]);
    guard.set_offered(Some(["read"]));
    guard.set_full_validation(true);
    assert_eq!(
        message(guard.check("ghost", "not json")),
        "unknown tool: ghost"
    );
    assert_eq!(message(guard.check("ghost", "")), "unknown tool: ghost");
}

#[test]
fn disabled_beats_not_offered_and_input_checks() {
    let mut guard = guard();
    guard.set_disabled(["edit"]);
    guard.set_offered(Some(["read"]));
    assert_eq!(message(guard.check("edit", "{")), "tool edit is disabled");
    assert_eq!(message(guard.check("edit", "{}")), "tool edit is disabled");
}

#[test]
fn not_offered_beats_input_checks() {
    let mut guard = guard();
    guard.set_offered(Some(["read"]));
    assert_eq!(
        message(guard.check("edit", "{")),
        format!("tool edit{NOT_OFFERED_TAIL}")
    );
    assert_eq!(
        message(guard.check("edit", "{}")),
        format!("tool edit{NOT_OFFERED_TAIL}")
    );
}

#[test]
fn missing_field_beats_schema_violation() {
    let mut guard = guard();
    guard.set_full_validation(true);
    // offset is also of the wrong type, but the missing field comes first.
    assert_eq!(
        message(guard.check("read", r#"{"offset": "x"}"#)),
        r#"tool read: invalid input: missing required field "path""#
    );
}

#[test]
fn visibility_applies_to_tools_registered_later_and_can_be_reset() {
    let mut guard = Guard::new();
    guard.set_disabled(["late"]);
    guard.set_offered(Some(["other"]));
    guard.register("late", &json!({})).unwrap();
    guard.register("later", &json!({})).unwrap();
    assert_eq!(message(guard.check("late", "{}")), "tool late is disabled");
    assert_eq!(
        message(guard.check("later", "{}")),
        format!("tool later{NOT_OFFERED_TAIL}")
    );
    guard.set_disabled(Vec::<String>::new());
    guard.offer_all();
    assert!(guard.check("late", "{}").is_ok());
    assert!(guard.check("later", "{}").is_ok());
    guard.set_offered(Some(["later"]));
    assert!(guard.check("later", "{}").is_ok());
    guard.set_offered(None::<Vec<String>>);
    assert!(guard.check("late", "{}").is_ok());
}

// ---------------------------------------------------------------- full mode

#[test]
fn full_mode_is_off_by_default_and_set_by_builder() {
    let input = r#"{"path": 7}"#;
    let mut guard = guard();
    assert!(!guard.full_validation());
    assert!(guard.check("read", input).is_ok());

    let mut full = Guard::builder().full_validation(true).build();
    assert!(full.full_validation());
    full.register("read", &read_schema()).unwrap();
    assert_eq!(
        message(full.check("read", input)),
        r#"tool read: invalid input: /path: 7 is not of type "string""#
    );

    guard.set_full_validation(true);
    assert_eq!(
        message(guard.check("read", input)),
        r#"tool read: invalid input: /path: 7 is not of type "string""#
    );
    guard.set_full_validation(false);
    assert!(guard.check("read", input).is_ok());
}

fn nested_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"x": {"type": "string", "minLength": 2}},
                    "required": ["x"]
                }
            },
            "opts": {
                "type": "object",
                "properties": {"deep": {"type": "object", "properties": {"k": {"enum": ["a", "b"]}}}}
            }
        },
        "required": ["items"]
    })
}

#[test]
fn full_mode_reports_nested_errors_with_pointers() {
    let mut guard = Guard::builder().full_validation(true).build();
    guard.register("n", &nested_schema()).unwrap();
    let err = guard
        .check(
            "n",
            r#"{"items": [{"x": "ok"}, {"x": 5}], "opts": {"deep": {"k": "c"}}}"#,
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        r#"tool n: invalid input: /items/1/x: 5 is not of type "string"; /opts/deep/k: "c" is not one of "a" or "b""#
    );
    let Rejection::SchemaViolation {
        tool,
        violations,
        more,
    } = &err
    else {
        panic!("expected a schema violation, got {err:?}");
    };
    assert_eq!(tool, "n");
    assert!(!more);
    let found: Vec<(&str, &str)> = violations
        .iter()
        .map(|v| (v.pointer.as_str(), v.message.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("/items/1/x", r#"5 is not of type "string""#),
            ("/opts/deep/k", r#""c" is not one of "a" or "b""#),
        ]
    );
    // Nested `required` is a full-mode finding with the pointer of the object.
    assert_eq!(
        message(guard.check("n", r#"{"items": [{"x": "ok"}, {}]}"#)),
        r#"tool n: invalid input: /items/1: "x" is a required property"#
    );
}

#[test]
fn full_mode_reports_at_most_three_errors() {
    let mut guard = Guard::builder().full_validation(true).build();
    guard.register("n", &nested_schema()).unwrap();
    let err = guard
        .check(
            "n",
            r#"{"count": "x", "items": [{"x": 1}, {"x": "a"}, {"x": 2}, {"x": 3}]}"#,
        )
        .unwrap_err();
    let Rejection::SchemaViolation {
        violations, more, ..
    } = &err
    else {
        panic!("expected a schema violation, got {err:?}");
    };
    assert_eq!(violations.len(), MAX_REPORTED_VIOLATIONS);
    assert!(*more);
    let text = err.to_string();
    assert!(text.starts_with("tool n: invalid input: "), "{text}");
    assert!(text.ends_with(" (more errors not shown)"), "{text}");
    assert_eq!(text.matches("; ").count(), 2, "{text}");
    for v in violations {
        assert!(v.pointer.starts_with('/'), "{v:?}");
        assert!(text.contains(&v.to_string()), "{text} lacks {v}");
    }

    // Exactly three errors: all listed, no "more" marker.
    let err = guard
        .check("n", r#"{"count": "x", "items": [{"x": 1}, {"x": 2}]}"#)
        .unwrap_err();
    assert!(
        matches!(&err, Rejection::SchemaViolation { violations, more: false, .. } if violations.len() == 3)
    );
    assert!(!err.to_string().contains("more errors"));
}

#[test]
fn full_mode_root_pointer_is_slash() {
    let mut guard = Guard::builder().full_validation(true).build();
    guard
        .register(
            "obj",
            &json!({"type": "object", "properties": {"x": {}}, "additionalProperties": false}),
        )
        .unwrap();
    assert_eq!(
        message(guard.check("obj", "[1,2]")),
        r#"tool obj: invalid input: /: [1,2] is not of type "object""#
    );
    assert_eq!(
        message(guard.check("obj", r#"{"a": 1}"#)),
        r#"tool obj: invalid input: /: Additional properties are not allowed ('a' was unexpected)"#
    );
}

#[test]
fn full_mode_cuts_long_messages() {
    let mut guard = Guard::builder().full_validation(true).build();
    guard
        .register("t", &json!({"properties": {"s": {"type": "integer"}}}))
        .unwrap();
    let long = "é".repeat(1000);
    let err = guard
        .check("t", &json!({ "s": long }).to_string())
        .unwrap_err();
    let Rejection::SchemaViolation { violations, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(violations[0].pointer, "/s");
    assert_eq!(violations[0].message.chars().count(), 201);
    assert!(violations[0].message.ends_with('…'));
}

#[test]
fn full_mode_accepts_valid_input() {
    let mut guard = Guard::builder().full_validation(true).build();
    guard.register("n", &nested_schema()).unwrap();
    let raw = r#"{"count": 2, "items": [{"x": "ab"}], "opts": {"deep": {"k": "a"}}}"#;
    assert_eq!(
        guard.check("n", raw).unwrap(),
        serde_json::from_str::<Value>(raw).unwrap()
    );
}

#[test]
fn full_mode_survives_deep_input_with_recursive_schema_on_a_small_stack() {
    // serde_json refuses nesting beyond 128; the deepest accepted input must
    // validate against a recursive schema on a 2 MiB thread stack.
    let mut guard = Guard::builder().full_validation(true).build();
    guard
        .register(
            "tree",
            &json!({"type": ["array", "integer"], "items": {"$ref": "#"}}),
        )
        .unwrap();
    let deep = format!("{}1{}", "[".repeat(127), "]".repeat(127));
    let too_deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
    let bad = format!("{}\"s\"{}", "[".repeat(127), "]".repeat(127));
    let handle = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn(move || {
            (
                guard.check("tree", &deep).is_ok(),
                guard.check("tree", &too_deep),
                guard.check("tree", &bad),
            )
        })
        .unwrap();
    let (deep_ok, too_deep, bad) = handle.join().unwrap();
    assert!(deep_ok);
    assert!(
        matches!(too_deep, Err(Rejection::InvalidJson { ref detail, .. }) if detail.starts_with("recursion limit exceeded"))
    );
    let bad = bad.unwrap_err().to_string();
    let pointer = "/0".repeat(126);
    assert!(
        bad.contains(&format!("{pointer}: \"s\" is not of types")),
        "{bad}"
    );
}

// ---------------------------------------------------------------- registration

#[test]
fn schema_that_does_not_compile_is_an_error_naming_the_tool() {
    let cases = [
        (json!({"type": 5}), "/type: "),
        (json!({"required": "path"}), "/required: "),
        (json!({"pattern": "("}), "/pattern: "),
        (
            json!({"properties": {"a": {"$ref": "#/$defs/nope"}}}),
            "/: ",
        ),
        (json!(5), "/: "),
        (json!({"$schema": "https://example.com/my-meta"}), "/: "),
    ];
    for full in [false, true] {
        for (schema, detail_start) in &cases {
            let mut guard = Guard::builder().full_validation(full).build();
            let err = guard.register("broken_tool", schema).unwrap_err();
            assert_eq!(err.tool(), "broken_tool");
            let text = err.to_string();
            assert!(
                text.starts_with(&format!(
                    "tool broken_tool: invalid input schema: {detail_start}"
                )),
                "{schema}: {text}"
            );
            assert!(matches!(err, GuardError::InvalidSchema { .. }), "{err:?}");
            assert!(!guard.is_registered("broken_tool"));
        }
    }
    assert_eq!(
        Guard::new()
            .register("t", &json!({"type": 5}))
            .unwrap_err()
            .to_string(),
        "tool t: invalid input schema: /type: 5 is not valid under any of the schemas listed in the 'anyOf' keyword"
    );
}

#[test]
fn failed_re_registration_keeps_the_previous_schema() {
    let mut guard = guard();
    assert!(guard.register("read", &json!({"type": 5})).is_err());
    assert_eq!(guard.required_fields("read").unwrap(), ["path".to_owned()]);
    assert!(guard.check("read", "{}").is_err());
}

#[test]
fn re_registration_replaces_the_schema() {
    let mut guard = guard();
    guard
        .register("read", &json!({"required": ["file"]}))
        .unwrap();
    assert_eq!(
        message(guard.check("read", r#"{"path": "a"}"#)),
        r#"tool read: invalid input: missing required field "file""#
    );
}

#[test]
fn remote_ref_is_refused_at_registration() {
    let mut guard = Guard::new();
    let err = guard
        .register("fetcher", &json!({"$ref": "https://example.com/x.json"}))
        .unwrap_err();
    assert_eq!(
        err,
        GuardError::ExternalRef {
            tool: "fetcher".into(),
            uri: "https://example.com/x.json".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "tool fetcher: invalid input schema: external reference \"https://example.com/x.json\" is not allowed (schemas never fetch anything; only references inside the schema itself work)"
    );
    assert!(!guard.is_registered("fetcher"));

    // Nested and relative references, resolved against the schema's $id.
    let err = guard
        .register(
            "nested",
            &json!({"$id": "https://example.com/root.json",
                    "properties": {"a": {"$ref": "defs.json#/x"}}}),
        )
        .unwrap_err();
    assert!(
        matches!(&err, GuardError::ExternalRef { tool, uri } if tool == "nested" && uri == "https://example.com/defs.json"),
        "{err:?}"
    );
}

#[test]
fn remote_ref_touches_no_network() {
    // A local server that would hand back a valid schema: had the guard
    // fetched it, registration would succeed and a connection would wait.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/schema.json", listener.local_addr().unwrap());
    let mut guard = Guard::new();
    let err = guard
        .register("net", &json!({"$ref": url.clone()}))
        .unwrap_err();
    assert!(
        matches!(&err, GuardError::ExternalRef { tool, uri } if tool == "net" && *uri == url),
        "{err:?}"
    );
    match listener.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the guard connected to the schema server: {other:?}"),
    }
}

#[test]
fn file_ref_reads_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema.json");
    std::fs::write(&path, r#"{"type": "object"}"#).unwrap();
    let url = format!("file://{}", path.display());
    let mut guard = Guard::new();
    let err = guard
        .register("local", &json!({"$ref": url.clone()}))
        .unwrap_err();
    assert!(
        matches!(&err, GuardError::ExternalRef { tool, uri } if tool == "local" && *uri == url),
        "{err:?}"
    );
}

#[test]
fn internal_and_recursive_refs_work() {
    let mut guard = Guard::builder().full_validation(true).build();
    guard
        .register(
            "r",
            &json!({
                "$defs": {"pos": {"type": "integer", "minimum": 1}},
                "properties": {"n": {"$ref": "#/$defs/pos"}, "child": {"$ref": "#"}}
            }),
        )
        .unwrap();
    assert!(guard.check("r", r#"{"n": 1, "child": {"n": 2}}"#).is_ok());
    assert_eq!(
        message(guard.check("r", r#"{"child": {"child": {"n": 0}}}"#)),
        "tool r: invalid input: /child/child/n: 0 is less than the minimum of 1"
    );
}

#[test]
fn registry_queries() {
    let mut guard = guard();
    let mut names: Vec<&str> = guard.tool_names().collect();
    names.sort_unstable();
    assert_eq!(names, ["edit", "ping", "read"]);
    assert!(guard.is_registered("ping"));
    assert_eq!(guard.required_fields("ping").unwrap(), [] as [String; 0]);
    assert_eq!(guard.required_fields("nope"), None);
    assert!(guard.unregister("ping"));
    assert!(!guard.unregister("ping"));
    assert!(!guard.is_registered("ping"));
    assert_eq!(message(guard.check("ping", "{}")), "unknown tool: ping");
    // Boolean schemas: `true` accepts anything, `false` only in full mode rejects.
    guard.register("yes", &json!(true)).unwrap();
    guard.register("no", &json!(false)).unwrap();
    assert!(guard.check("no", "{}").is_ok());
    guard.set_full_validation(true);
    assert!(guard.check("yes", "[]").is_ok());
    assert!(matches!(
        guard.check("no", "{}"),
        Err(Rejection::SchemaViolation { .. })
    ));
}

#[test]
fn guard_is_shareable() {
    fn assert_send_sync<T: Send + Sync + Clone + std::fmt::Debug>() {}
    assert_send_sync::<Guard>();
    assert_send_sync::<Rejection>();
    assert_send_sync::<GuardError>();
    let guard = std::sync::Arc::new(guard());
    let threads: Vec<_> = (0..4)
        .map(|i| {
            let guard = guard.clone();
            std::thread::spawn(move || guard.check("read", &format!(r#"{{"path": "{i}"}}"#)))
        })
        .collect();
    for t in threads {
        assert!(t.join().unwrap().is_ok());
    }
}

// ---------------------------------------------------------------- properties

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<f64>()
                .prop_filter("finite", |f| f.is_finite())
                .prop_map(Value::from),
            "[a-z]{0,3}".prop_map(Value::String),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map("[a-z]{0,3}", inner, 0..6)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Objects with the keys and values the schema-like generator mentions,
    /// so that schemas both accept and reject them.
    fn small_object() -> impl Strategy<Value = Value> {
        let leaf = prop::sample::select(vec![
            json!(null),
            json!(0),
            json!(1),
            json!(5),
            json!("x"),
            json!("abc"),
            json!([]),
            json!([1, 1]),
            json!({}),
            json!({"c": 1}),
            json!({"a": "x"}),
        ]);
        prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c", "d"]), leaf, 0..4)
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
    }

    const KEYWORDS: &[&str] = &[
        "type",
        "properties",
        "required",
        "items",
        "enum",
        "const",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "$ref",
        "$defs",
        "anyOf",
        "allOf",
        "oneOf",
        "not",
        "additionalProperties",
        "prefixItems",
        "uniqueItems",
        "format",
        "$schema",
        "$id",
        "dependentRequired",
        "if",
        "then",
        "else",
        "contains",
        "multipleOf",
        "minItems",
    ];

    /// Values shaped like schemas: objects whose keys are mostly keywords,
    /// with keyword-typical or arbitrary values, nested.
    fn schema_like() -> impl Strategy<Value = Value> {
        let typical = prop_oneof![
            prop::sample::select(vec![
                json!("object"),
                json!("string"),
                json!("integer"),
                json!(["array", "null"]),
                json!("#"),
                json!("#/$defs/a"),
                json!("https://example.com/x.json"),
                json!("^[a-z]+$"),
                json!("(a+)+$"),
                json!(["a", "b"]),
                json!(["b"]),
                json!({"a": {"type": "string"}, "b": {"minimum": 3}}),
                json!({"a": {"$ref": "#"}, "c": {"enum": [1, "x"]}}),
                json!({"type": "integer"}),
                json!({"required": ["c"]}),
                json!([]),
                json!(0),
                json!(2),
                json!(true),
                json!(false),
                json!("http://json-schema.org/draft-07/schema#"),
                json!("http://json-schema.org/draft-04/schema#"),
            ]),
            json_value(),
        ];
        let leaf = prop_oneof![
            Just(json!({})),
            Just(json!(true)),
            prop::collection::btree_map(prop::sample::select(KEYWORDS), typical.clone(), 0..4)
                .prop_map(|m| Value::Object(
                    m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
                )),
            json_value(),
        ];
        leaf.prop_recursive(3, 24, 4, move |inner| {
            prop::collection::btree_map(
                prop::sample::select(KEYWORDS),
                prop_oneof![
                    inner.clone(),
                    prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                    prop::collection::btree_map("[a-z]{1,2}", inner, 0..3)
                        .prop_map(|m| Value::Object(m.into_iter().collect())),
                    typical.clone(),
                ],
                0..4,
            )
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect()))
        })
    }

    /// Well-formed schemas from a small grammar, over the keys and values
    /// of [`small_object`], so that full mode both accepts and rejects.
    fn structured_schema() -> impl Strategy<Value = Value> {
        let leaf = prop::sample::select(vec![
            json!(true),
            json!(false),
            json!({}),
            json!({"type": "string"}),
            json!({"type": "integer"}),
            json!({"type": ["object", "null"]}),
            json!({"type": "array", "uniqueItems": true}),
            json!({"minimum": 1}),
            json!({"maxLength": 2}),
            json!({"pattern": "^a"}),
            json!({"enum": [1, "x", null]}),
            json!({"const": 5}),
            json!({"$ref": "#"}),
            json!({"minProperties": 1}),
        ]);
        leaf.prop_recursive(3, 24, 4, |inner| {
            let key = prop::sample::select(vec!["a", "b", "c", "d"]);
            prop_oneof![
                (
                    prop::collection::btree_map(key.clone(), inner.clone(), 0..4),
                    prop::collection::btree_set(key, 0..3),
                    prop::option::of(inner.clone()),
                )
                    .prop_map(|(props, required, additional)| {
                        let mut schema = json!({
                            "type": "object",
                            "properties": props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<serde_json::Map<_, _>>(),
                            "required": required.into_iter().collect::<Vec<_>>(),
                        });
                        if let Some(additional) = additional {
                            schema["additionalProperties"] = additional;
                        }
                        schema
                    }),
                inner.clone().prop_map(|items| json!({"type": "array", "items": items})),
                prop::collection::vec(inner.clone(), 1..3).prop_map(|s| json!({"anyOf": s})),
                prop::collection::vec(inner.clone(), 1..3).prop_map(|s| json!({"allOf": s})),
                prop::collection::vec(inner.clone(), 1..3).prop_map(|s| json!({"oneOf": s})),
                inner.prop_map(|s| json!({"not": s})),
            ]
        })
    }

    fn all_modes(schema: &Value) -> Vec<Guard> {
        [false, true]
            .into_iter()
            .filter_map(|full| {
                let mut guard = Guard::builder().full_validation(full).build();
                guard.register("t", schema).ok()?;
                Some(guard)
            })
            .collect()
    }

    proptest! {
        #[test]
        fn never_panics_on_arbitrary_bytes(
            bytes in prop::collection::vec(any::<u8>(), 0..256),
            name in prop_oneof![Just("read".to_owned()), Just("edit".to_owned()), any::<String>()],
        ) {
            let text = String::from_utf8_lossy(&bytes);
            let mut g = guard();
            for full in [false, true] {
                g.set_full_validation(full);
                match g.check(&name, &text) {
                    Ok(value) => {
                        prop_assert_eq!(Some(value), serde_json::from_str::<Value>(&text).ok());
                    }
                    Err(rejection) => {
                        prop_assert_eq!(rejection.tool(), name.as_str());
                        prop_assert!(!rejection.to_string().is_empty());
                    }
                }
            }
        }

        #[test]
        fn never_panics_on_arbitrary_json_text_with_a_json_prefix(
            value in json_value(),
            tail in "[\\]\\[{}\",:a-z0-9 ]{0,4}",
        ) {
            let text = format!("{value}{tail}");
            let g = guard();
            let parsed = serde_json::from_str::<Value>(&text);
            match (g.check("ping", &text), parsed) {
                (Ok(got), Ok(expected)) => prop_assert_eq!(got, expected),
                (Err(Rejection::InvalidJson { detail, .. }), Err(e)) => {
                    prop_assert_eq!(detail, e.to_string())
                }
                (got, parsed) => prop_assert!(false, "guard {:?} vs parser {:?}", got, parsed),
            }
        }

        #[test]
        fn never_panics_on_arbitrary_schemas_and_inputs(
            schema in prop_oneof![json_value(), schema_like(), structured_schema()],
            input in prop_oneof![json_value(), small_object()],
        ) {
            let raw = input.to_string();
            let guards = all_modes(&schema);
            // Compilation does not depend on the mode.
            prop_assert!(guards.is_empty() || guards.len() == 2);
            let mut verdicts = Vec::new();
            for g in &guards {
                let verdict = g.check("t", &raw);
                if let Ok(value) = &verdict {
                    prop_assert_eq!(value, &input);
                }
                if let Err(rejection) = &verdict {
                    // A serialized value always parses.
                    prop_assert!(!matches!(rejection, Rejection::InvalidJson { .. }), "{}", rejection);
                    if let Rejection::SchemaViolation { violations, .. } = rejection {
                        prop_assert!(g.full_validation());
                        prop_assert!(!violations.is_empty());
                        prop_assert!(violations.len() <= MAX_REPORTED_VIOLATIONS);
                    }
                }
                verdicts.push(verdict);
            }
            if let [default, full] = &verdicts[..] {
                // Full mode only adds checks.
                if full.is_ok() {
                    prop_assert!(default.is_ok());
                }
                if let Err(e @ Rejection::MissingField { .. }) = default {
                    prop_assert_eq!(full.as_ref().err(), Some(e));
                }
            }
        }

        #[test]
        fn required_verdict_matches_reference_model(
            keys in prop::collection::btree_set("[a-e]", 0..6),
            required in Just(vec!["a", "b", "c", "d", "e", "f"]).prop_shuffle(),
            len in 0_usize..=6,
            values in prop::collection::vec(json_value(), 6),
            non_object in prop::option::of(prop_oneof![
                Just(json!([])), Just(json!(null)), Just(json!("a")), Just(json!(1)), Just(json!(["a"])),
            ]),
        ) {
            let required = &required[..len];
            let mut guard = Guard::new();
            guard.register("t", &json!({"type": "object", "required": required})).unwrap();
            let input: Value = match &non_object {
                Some(v) => v.clone(),
                None => Value::Object(
                    keys.iter().cloned().zip(values.iter().cloned()).collect(),
                ),
            };
            // The model: the first required name absent from the key set.
            let model = required
                .iter()
                .find(|r| non_object.is_some() || !keys.contains(**r))
                .map(|r| (*r).to_owned());
            match guard.check("t", &input.to_string()) {
                Ok(value) => {
                    prop_assert_eq!(model, None);
                    prop_assert_eq!(value, input);
                }
                Err(Rejection::MissingField { tool, field }) => {
                    prop_assert_eq!(tool, "t");
                    prop_assert_eq!(Some(field), model);
                }
                Err(other) => prop_assert!(false, "unexpected {:?}", other),
            }
        }
    }
}
