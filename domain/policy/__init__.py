"""Policy: the capability matrix, enforcement (the only Denied), protection, modes, human approvals."""
