version="0.1"
name="Local Fix"
path="mod/LocalFix"
supported_version="1.12.*"
