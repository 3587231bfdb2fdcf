version="0.1"
name="Local Fix"
supported_version="1.12.*"
