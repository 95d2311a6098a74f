"""One module per check: each takes the loaded files (deploycheck.model.Deploy) and returns its problems, one
line each, empty when all is well."""
