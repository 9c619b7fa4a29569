//! Tools around UHP engines.
