package operation

import (
	"context"
)

// eachRowArgs is eachRow with any arguments.
func eachRowArgs(ctx context.Context, q querier, sql string, args []any, row func(scan func(...any) error) error) error {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := row(rows.Scan); err != nil {
			return err
		}
	}
	return rows.Err()
}

// eachRow runs sql with the id list and calls row for every row.
func eachRow(ctx context.Context, q querier, sql string, ids []string, row func(scan func(...any) error) error) error {
	return eachRowArgs(ctx, q, sql, []any{ids}, row)
}
