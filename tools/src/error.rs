//! The error type of the tools library.

use crate::process::UhpError;
use std::fmt;

/// Why a tool could not do its job.
#[derive(Debug)]
pub enum ToolError {
    /// A setting, argument or input file is wrong.
    Config(String),
    /// A file could not be read or written.
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        error: std::io::Error,
    },
    /// An engine could not be talked to (outside a game, where failures are results).
    Engine {
        /// The engine's name.
        name: String,
        /// What went wrong.
        error: UhpError,
    },
    /// An engine said something that cannot be understood.
    Protocol {
        /// The engine's name.
        name: String,
        /// What it said and why that is wrong.
        detail: String,
    },
}

impl ToolError {
    /// An I/O error on `path`.
    pub fn io(path: impl AsRef<std::path::Path>, error: std::io::Error) -> ToolError {
        ToolError::Io {
            path: path.as_ref().display().to_string(),
            error,
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::Config(s) => write!(f, "{s}"),
            ToolError::Io { path, error } => write!(f, "{path}: {error}"),
            ToolError::Engine { name, error } => write!(f, "engine {name}: {error}"),
            ToolError::Protocol { name, detail } => write!(f, "engine {name}: {detail}"),
        }
    }
}

impl std::error::Error for ToolError {}
