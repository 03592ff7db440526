"""`python -m app eval`: prompts, models and rules measured on a dataset before they reach
users; `python -m app collect`: Langfuse annotation queues and 👎 feedback turned into
dataset items a person fills in."""
