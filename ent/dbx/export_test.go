package dbx

// SharesInUse counts the slots of db's connection share held or waited for.
func SharesInUse(db *DB) int { return db.share.inUse() }
