"""The model jitlint analyses code with: value domain, JAX and TF models, environment, project."""
