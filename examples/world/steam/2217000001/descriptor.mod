version="1.2"
name="Better Traits"
supported_version="1.12.*"
remote_file_id="2217000001"
