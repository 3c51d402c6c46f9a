"""``python -m pipeline`` runs the ``redecode`` CLI."""

from pipeline.cli import app

app(prog_name="redecode")
