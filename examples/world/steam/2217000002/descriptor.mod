version="0.9"
name="More Events"
supported_version="1.12.*"
remote_file_id="2217000002"
