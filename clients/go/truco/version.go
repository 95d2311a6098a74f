package truco

// Version is the SDK's version: the project's one version (VERSION at the repository root), shared by the
// contract and every SDK. The module is tagged clients/go/v<Version>.
const Version = "0.3.0"
