"""Renderers: they show a Diagnosis and never diagnose anything themselves."""
