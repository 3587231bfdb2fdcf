"""The application: composition root, configuration and the operator's command line."""
