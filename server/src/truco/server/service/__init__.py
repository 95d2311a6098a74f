"""The contract served: one pipeline for every door (:mod:`.pipeline`), the servicers, PlayGame sessions,
and the conversions between protobuf and the core's values; errors mapped to statuses once."""
