"""The agent loop: Claude drafts, verification checks, retries carry feedback."""
