"""The sandbox: modes and policy, confinement values, the confining runner, the path policy."""
