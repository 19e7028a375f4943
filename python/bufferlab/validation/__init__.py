"""Cross-validation of the engine against ns-3 (the `ns3` package from PyPI)."""
