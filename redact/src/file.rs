//! User rule files (TOML or JSON), behind the `rule-files` feature.

use std::path::Path;

use serde::Deserialize;

use crate::rule::{Rule, RuleSet, SecretGroup};
use crate::Error;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRules {
    #[serde(default, alias = "rule")]
    rules: Vec<FileRule>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FileGroup {
    Index(usize),
    Name(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileRule {
    id: String,
    pattern: String,
    #[serde(default)]
    secret_group: Option<FileGroup>,
    #[serde(default)]
    keywords: Vec<String>,
    #[serde(default)]
    min_entropy: Option<f64>,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    multiline: bool,
}

fn into_set(file: FileRules) -> Result<RuleSet, Error> {
    let mut set = RuleSet::new();
    for r in file.rules {
        let mut b = Rule::builder(r.id, r.pattern)
            .keywords(r.keywords)
            .multiline(r.multiline);
        if let Some(g) = r.secret_group {
            b = b.secret_group(match g {
                FileGroup::Index(i) => SecretGroup::from(i),
                FileGroup::Name(n) => SecretGroup::Name(n),
            });
        }
        if let Some(e) = r.min_entropy {
            b = b.min_entropy(e);
        }
        for a in r.allow {
            b = b.allow(a);
        }
        set.push(b.build()?);
    }
    Ok(set)
}

impl RuleSet {
    /// Parses user rules from TOML:
    ///
    /// ```toml
    /// [[rules]]
    /// id = "acme-token"
    /// pattern = '''\bacme_[a-z0-9]{32}\b'''
    /// keywords = ["acme_"]
    /// # optional: secret_group = 1 | "name", min_entropy = 3.0,
    /// #           allow = ['''^acme_0+$'''], multiline = false
    /// ```
    pub fn from_toml_str(text: &str) -> Result<RuleSet, Error> {
        from_toml(text, None)
    }

    /// Parses user rules from JSON: `{"rules": [{"id": …, "pattern": …, …}]}`
    /// (same fields as TOML) or a bare array of rules.
    pub fn from_json_str(text: &str) -> Result<RuleSet, Error> {
        from_json(text, None)
    }

    /// Reads a `.toml` or `.json` rule file.
    pub fn from_path(path: impl AsRef<Path>) -> Result<RuleSet, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
            path: path.to_path_buf(),
            source,
        })?;
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("toml") => from_toml(&text, Some(path)),
            Some("json") => from_json(&text, Some(path)),
            _ => Err(Error::UnknownFormat {
                path: path.to_path_buf(),
            }),
        }
    }
}

fn from_toml(text: &str, path: Option<&Path>) -> Result<RuleSet, Error> {
    let file: FileRules = toml::from_str(text).map_err(|e| Error::Parse {
        format: "toml",
        path: path.map(Path::to_path_buf),
        message: e.to_string().trim_end().to_string(),
    })?;
    into_set(file)
}

fn from_json(text: &str, path: Option<&Path>) -> Result<RuleSet, Error> {
    let err = |e: serde_json::Error| Error::Parse {
        format: "json",
        path: path.map(Path::to_path_buf),
        message: e.to_string(),
    };
    let file = if text.trim_start().starts_with('[') {
        FileRules {
            rules: serde_json::from_str(text).map_err(err)?,
        }
    } else {
        serde_json::from_str(text).map_err(err)?
    };
    into_set(file)
}
