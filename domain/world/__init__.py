"""The world: addresses resolved to canonical places, visibility per mode, sealed refs, playsets."""
