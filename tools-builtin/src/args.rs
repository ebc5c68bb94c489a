//! Typed access to the fields of a tool's JSON input.
//!
//! Unknown fields are ignored (models do send extra ones); `null` counts as
//! absent for optional fields; a present field of the wrong type is an
//! error naming the field.

use serde_json::{Map, Value};

use crate::error::ToolsError;

/// The fields of one call's input object.
pub(crate) struct Args<'a> {
    map: &'a Map<String, Value>,
}

fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<'a> Args<'a> {
    /// The input must be a JSON object.
    pub(crate) fn new(input: &'a Value) -> Result<Self, ToolsError> {
        match input {
            Value::Object(map) => Ok(Args { map }),
            other => Err(ToolsError::InvalidInput {
                field: None,
                message: format!("expected a JSON object, got {}", type_name(other)),
            }),
        }
    }

    fn present(&self, field: &str) -> Option<&'a Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    /// A required string field.
    pub(crate) fn string(&self, field: &str) -> Result<&'a str, ToolsError> {
        match self.present(field) {
            None => Err(ToolsError::InvalidInput {
                field: None,
                message: format!("missing required field \"{field}\""),
            }),
            Some(v) => v.as_str().ok_or_else(|| {
                ToolsError::field(field, format!("must be a string, got {}", type_name(v)))
            }),
        }
    }

    /// An optional string field.
    pub(crate) fn opt_string(&self, field: &str) -> Result<Option<&'a str>, ToolsError> {
        match self.present(field) {
            None => Ok(None),
            Some(v) => v.as_str().map(Some).ok_or_else(|| {
                ToolsError::field(field, format!("must be a string, got {}", type_name(v)))
            }),
        }
    }

    /// An optional boolean field.
    pub(crate) fn opt_bool(&self, field: &str) -> Result<Option<bool>, ToolsError> {
        match self.present(field) {
            None => Ok(None),
            Some(v) => v.as_bool().map(Some).ok_or_else(|| {
                ToolsError::field(
                    field,
                    format!("must be a boolean (true or false), got {}", type_name(v)),
                )
            }),
        }
    }

    /// An optional non-negative integer field (an integral float such as
    /// `10.0` is accepted).
    pub(crate) fn opt_u64(&self, field: &str) -> Result<Option<u64>, ToolsError> {
        let Some(v) = self.present(field) else {
            return Ok(None);
        };
        if let Some(n) = v.as_u64() {
            return Ok(Some(n));
        }
        if let Some(f) = v.as_f64() {
            if f.fract() == 0.0 && (0.0..=9.0e15).contains(&f) {
                // Exact: an integral float below 2^53.
                return Ok(Some(f as u64));
            }
        }
        Err(ToolsError::field(
            field,
            format!("must be a non-negative integer, got {}", describe(v)),
        ))
    }
}

fn describe(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("{n}"),
        other => type_name(other).to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn wrong_types_name_the_field() {
        let input = json!({"path": 5, "offset": "3", "flag": 1, "n": -2, "x": 1.5});
        let args = Args::new(&input).expect("object");
        assert_eq!(
            args.string("path").unwrap_err().to_string(),
            "invalid input: field \"path\" must be a string, got a number"
        );
        assert_eq!(
            args.opt_u64("offset").unwrap_err().to_string(),
            "invalid input: field \"offset\" must be a non-negative integer, got a string"
        );
        assert_eq!(
            args.opt_u64("n").unwrap_err().to_string(),
            "invalid input: field \"n\" must be a non-negative integer, got -2"
        );
        assert!(args.opt_u64("x").is_err());
        assert!(args.opt_bool("flag").is_err());
    }

    #[test]
    fn null_is_absent_and_extra_fields_are_ignored() {
        let input = json!({"path": "a", "offset": null, "unknown": [1]});
        let args = Args::new(&input).expect("object");
        assert_eq!(args.string("path").expect("string"), "a");
        assert_eq!(args.opt_u64("offset").expect("null"), None);
        assert_eq!(args.opt_u64("limit").expect("absent"), None);
        assert_eq!(
            args.string("content").unwrap_err().to_string(),
            "invalid input: missing required field \"content\""
        );
    }

    #[test]
    fn integral_floats_are_integers() {
        let input = json!({"n": 10.0});
        let args = Args::new(&input).expect("object");
        assert_eq!(args.opt_u64("n").expect("integral"), Some(10));
    }

    #[test]
    fn non_objects_are_refused() {
        assert_eq!(
            Args::new(&json!([1])).err().map(|e| e.to_string()),
            Some("invalid input: expected a JSON object, got an array".to_string())
        );
    }
}
