"""LLM providers: the provider ABC, the registry, routing, and the two call paths.

OpenAI-wire routes call through the ``openai`` SDK (:mod:`desktop.core.providers.openai_provider`,
no LiteLLM); the others through LiteLLM (:mod:`desktop.core.providers.litellm_provider`, the one
module that imports LiteLLM itself). Both SDKs are slow to import: each is imported in a worker
thread at its first call, never when these modules are.
"""
