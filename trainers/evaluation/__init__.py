"""Evaluating decoded readings: accuracy per class with judged errors, configuration comparisons, significance."""
