"""Offline checks of the deployment files: the Dockerfile, .dockerignore and the manifests of deploy/k8s.

Standard tools do what they are made for: kubernetes-validate validates every manifest strictly against the
Kubernetes API schemas it ships, `kubectl kustomize` builds the kustomization (every component enabled), and
hadolint lints the Dockerfile; the three come with the dev dependency group (pyproject.toml). The project's own
checks (deploycheck.checks) are what those tools cannot know: that the files agree with each other and with what
`truco serve` needs. They copy no value of the files: ports, replica counts, names and the namespace are read
from the files and compared with each other.

    python scripts/validate-deploy.py       # every check, its problems under it; exit status 1 if any
"""
