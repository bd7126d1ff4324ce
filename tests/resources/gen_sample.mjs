import { DuckDBInstance } from '@duckdb/node-api';
const db = await DuckDBInstance.create(':memory:');
const c = await db.connect();
await c.run(`COPY (
  SELECT i AS order_id,
         ['ada','grace','linus','ken','barbara','edsger'][1 + (i * 7) % 6] AS customer,
         CAST(round(((i * 37) % 1000) / 7.0, 2) AS DECIMAL(10,2)) AS amount,
         TIMESTAMPTZ '2026-01-01 00:00:00+00' + INTERVAL (i * 3671) SECOND AS ordered_at,
         DATE '2026-01-01' + CAST(i / 10 AS INTEGER) AS ship_date,
         CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END AS express,
         list_transform(range(i % 4), x -> 'item-' || (x + i)) AS items,
         {'city': ['Lisbon','Oslo','Lima','Kyoto'][1 + i % 4], 'zip': CAST(1000 + i AS VARCHAR)} AS address
  FROM range(5000) t(i)) TO 'tests/resources/sample.parquet' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2048)`);
