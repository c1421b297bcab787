__version__ = "0.1.0"
USER_AGENT = f"engram-sdk-python/{__version__}"
