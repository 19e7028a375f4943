"""Analytic models from the papers, computed exactly (pure numpy/scipy, no engine needed)."""
