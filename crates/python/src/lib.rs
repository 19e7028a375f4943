//! Python bindings placeholder.
