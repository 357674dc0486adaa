"""LLM providers: the provider ABC, the registry, routing, and the LiteLLM backend.

Import :mod:`desktop.core.providers.litellm_provider` only where a call is made: it is the single
module that imports LiteLLM, and that import is slow.
"""
