"""Who may call and how much: API keys, quotas and caps (:mod:`.admission`), bounded input, forwarded clients."""
