//! `tool_search`: find registered tools by name and description.

use serde_json::{json, Value};
use toolexec_core::{Tool, ToolContext, ToolError, ToolFuture, ToolInfo};

use crate::args::Args;

/// Tools returned at most for a free-text query.
pub const TOOL_SEARCH_MAX_RESULTS: usize = 20;

/// The `tool_search` tool: searches every registered tool of the
/// [`ToolContext::catalog`] (offered this turn or not; disabled tools are
/// left out, since they cannot be called).
///
/// Two query forms:
///
/// - `select:a,b` — exactly the named tools, in that order.
/// - free text — split into lower-case terms on whitespace and commas; a
///   tool matches when any term occurs (case-insensitively) in its name or
///   description. Ranking: exact name match (100 a term), term in the name
///   (10), term in the description (1); ties by name. At most
///   [`TOOL_SEARCH_MAX_RESULTS`].
///
/// Output: pretty-printed JSON `{"tools": [{"name", "description",
/// "input_schema", "offered"}]}`, plus `"not_found": [names]` for select
/// names that are not registered. No match at all: `No tools match
/// "QUERY".`, followed by the list of registered names so the model can
/// try again.
#[derive(Debug)]
pub struct ToolSearchTool {
    schema: Value,
}

impl Default for ToolSearchTool {
    fn default() -> Self {
        ToolSearchTool::new()
    }
}

impl ToolSearchTool {
    /// The tool_search tool.
    pub fn new() -> Self {
        ToolSearchTool {
            schema: json!({
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": "Words to look for in tool names and descriptions, or \"select:name1,name2\" for exact names."
                    }
                },
                "required": ["query"]
            }),
        }
    }
}

fn entry(info: &ToolInfo) -> Value {
    json!({
        "name": info.name,
        "description": info.description,
        "input_schema": info.input_schema,
        "offered": info.offered,
    })
}

/// The search itself, on any catalogue.
pub(crate) fn search(catalog: &[ToolInfo], query: &str) -> String {
    let callable: Vec<&ToolInfo> = catalog.iter().filter(|t| !t.disabled).collect();
    let query = query.trim();
    let mut found: Vec<&ToolInfo> = Vec::new();
    let mut not_found: Vec<String> = Vec::new();

    if let Some(names) = query.strip_prefix("select:") {
        for name in names.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match callable.iter().find(|t| t.name == name) {
                Some(tool) if !found.iter().any(|f| f.name == tool.name) => found.push(tool),
                Some(_) => {}
                None => not_found.push(name.to_string()),
            }
        }
    } else {
        let terms: Vec<String> = query
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|t| !t.is_empty())
            .map(str::to_lowercase)
            .collect();
        let mut scored: Vec<(u32, &ToolInfo)> = callable
            .iter()
            .filter_map(|tool| {
                let name = tool.name.to_lowercase();
                let description = tool.description.to_lowercase();
                let score: u32 = terms
                    .iter()
                    .map(|term| {
                        let mut s = 0;
                        if name == *term {
                            s += 100;
                        }
                        if name.contains(term.as_str()) {
                            s += 10;
                        }
                        if description.contains(term.as_str()) {
                            s += 1;
                        }
                        s
                    })
                    .sum();
                (score > 0).then_some((score, *tool))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        found = scored
            .into_iter()
            .take(TOOL_SEARCH_MAX_RESULTS)
            .map(|(_, tool)| tool)
            .collect();
    }

    if found.is_empty() {
        let mut names: Vec<&str> = callable.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        let listed = if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        };
        return format!("No tools match \"{query}\". Registered tools: {listed}.");
    }
    let mut result = json!({ "tools": found.iter().map(|t| entry(t)).collect::<Vec<_>>() });
    if !not_found.is_empty() {
        result["not_found"] = json!(not_found);
    }
    serde_json::to_string_pretty(&result).unwrap_or_else(|e| format!("cannot encode result: {e}"))
}

impl Tool for ToolSearchTool {
    fn name(&self) -> &str {
        "tool_search"
    }

    fn description(&self) -> &str {
        "Search all registered tools (including those not offered in this turn) by name \
         and description. Returns their names, descriptions and input schemas as JSON. \
         Use \"select:name1,name2\" to fetch tools by exact name."
    }

    fn input_schema(&self) -> &Value {
        &self.schema
    }

    fn read_only(&self, _input: &Value) -> bool {
        true
    }

    fn concurrency_safe(&self, _input: &Value) -> bool {
        true
    }

    fn call(&self, input: Value, ctx: ToolContext) -> ToolFuture<'_> {
        Box::pin(async move {
            let args = Args::new(&input)?;
            let query = args.string("query")?;
            Ok::<_, ToolError>(search(ctx.catalog(), query))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: &str, description: &str, offered: bool, disabled: bool) -> ToolInfo {
        ToolInfo {
            name: name.to_string(),
            description: description.to_string(),
            input_schema: json!({"type": "object"}),
            read_only: true,
            concurrency_safe: true,
            offered,
            disabled,
        }
    }

    #[test]
    fn ranks_name_matches_first_and_skips_disabled() {
        let catalog = vec![
            info("read", "Read a file", true, false),
            info("web_fetch", "Fetch a page and read it", false, false),
            info("secret", "read secrets", true, true),
        ];
        let out: Value = serde_json::from_str(&search(&catalog, "READ")).expect("json");
        let names: Vec<&str> = out["tools"]
            .as_array()
            .expect("array")
            .iter()
            .map(|t| t["name"].as_str().expect("name"))
            .collect();
        assert_eq!(names, ["read", "web_fetch"]);
        assert_eq!(out["tools"][1]["offered"], json!(false));
    }

    #[test]
    fn select_and_no_match() {
        let catalog = vec![info("read", "Read a file", true, false)];
        let out: Value =
            serde_json::from_str(&search(&catalog, "select:read, nope")).expect("json");
        assert_eq!(out["tools"][0]["name"], "read");
        assert_eq!(out["not_found"], json!(["nope"]));
        assert_eq!(
            search(&catalog, "kubernetes"),
            "No tools match \"kubernetes\". Registered tools: read."
        );
    }
}
