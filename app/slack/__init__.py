"""The Slack side: events in, verified answers out."""
