"""The audits' SQL, installed as the package ``pipeline.sql`` (read by ``pipeline.audit``)."""
