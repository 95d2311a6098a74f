"""Generated from proto/truco/v1 by scripts/gen_proto.py: do not edit."""
