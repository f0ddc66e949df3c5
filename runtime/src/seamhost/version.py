"""The version of the seamhost-runtime distribution."""

__version__ = "0.1.0"
