package dbx

// SharesInUse counts the organizations and people that hold or wait for a share of db's pool.
func SharesInUse(db *DB) int { return db.share.inUse() }
