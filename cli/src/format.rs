//! `--format` of `toolexec run` and `toolexec tools`: the model APIs'
//! shapes (`native`, `openai`, `anthropic`; `mcp` for tools), converted by
//! [`toolexec_core::formats`].

use clap::ValueEnum;
use serde_json::Value;
use toolexec_core::formats::{self, OpenAiApi};
use toolexec_core::{ToolCall, ToolInfo, ToolResult};

/// The stdin / stdout shape of `toolexec run`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum RunFormat {
    /// A JSON array of `{"id","name","input"}` calls; results as toolexec's
    /// JSON array.
    #[default]
    Native,
    /// An OpenAI assistant message, Chat Completions response or list of
    /// Responses API output items; the tool messages to append.
    Openai,
    /// An Anthropic assistant message or Messages API response; one user
    /// message of tool_result blocks.
    Anthropic,
}

/// The shape of `toolexec tools`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum ToolsFormat {
    /// Name, description, input_schema, read_only, concurrency_safe.
    #[default]
    Native,
    /// OpenAI `tools`: `{"type":"function","function":{…}}`.
    Openai,
    /// Anthropic `tools`: `{"name","description","input_schema"}`.
    Anthropic,
    /// MCP `tools/list` entries.
    Mcp,
}

/// How the results of a batch read from stdin go back.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// toolexec's own result array.
    Native,
    /// OpenAI messages for this API.
    Openai(OpenAiApi),
    /// One Anthropic user message.
    Anthropic,
}

/// Reads the batch from stdin's text in `format`.
pub fn read_calls(format: RunFormat, text: &str) -> Result<(Vec<ToolCall>, Reply), String> {
    if format == RunFormat::Native {
        return crate::run::parse_calls(text).map(|calls| (calls, Reply::Native));
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("stdin is not valid JSON: {e}"))?;
    match format {
        RunFormat::Openai => {
            let batch = formats::openai_calls(value).map_err(|e| e.to_string())?;
            Ok((batch.calls, Reply::Openai(batch.api)))
        }
        _ => Ok((
            formats::anthropic_calls(value).map_err(|e| e.to_string())?,
            Reply::Anthropic,
        )),
    }
}

/// The results as the JSON text to print (moved into the API's messages:
/// nothing else needs them).
pub fn write_results(reply: Reply, results: Vec<ToolResult>) -> serde_json::Result<String> {
    match reply {
        Reply::Native => serde_json::to_string_pretty(&results),
        Reply::Openai(api) => serde_json::to_string_pretty(&formats::openai_results(api, results)),
        Reply::Anthropic => serde_json::to_string_pretty(&formats::anthropic_results(results)),
    }
}

/// The tool list as the JSON text to print.
pub fn write_tools(format: ToolsFormat, tools: &[ToolInfo]) -> serde_json::Result<String> {
    match format {
        ToolsFormat::Native => {
            let list: Vec<Value> = tools
                .iter()
                .map(|t| {
                    serde_json::json!({
                        "name": t.name,
                        "description": t.description,
                        "input_schema": t.input_schema,
                        "read_only": t.read_only,
                        "concurrency_safe": t.concurrency_safe,
                    })
                })
                .collect();
            serde_json::to_string_pretty(&list)
        }
        ToolsFormat::Openai => serde_json::to_string_pretty(&formats::openai_tools(tools)),
        ToolsFormat::Anthropic => serde_json::to_string_pretty(&formats::anthropic_tools(tools)),
        // As `toolexec mcp` lists them: exec alone reaches outside.
        ToolsFormat::Mcp => {
            // The very definitions `toolexec mcp` lists (titles included).
            let list: Vec<_> = tools
                .iter()
                .map(toolexec_mcp::server::builtin_tool_definition)
                .collect();
            serde_json::to_string_pretty(&list)
        }
    }
}
