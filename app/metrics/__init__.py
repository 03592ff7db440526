"""Verification rates and failure patterns from the scores Vouch records in Langfuse: the
report (`report.py`) from the first of Langfuse's read APIs the server offers (`api.py`),
over a window (`window.py`, which imports no SDK). `python -m app metrics` prints it
(`command.py`, the command line, which nothing here imports); the App Home shows it
(app/slack/home.py)."""
