-- Document ids are reserved in blocks outside the decision's transaction (index_meta.next_id
-- is the bound of the ids reserved so far), and the number of originals is counted from
-- index_document when asked: a counter row updated by every insert serialized all of them.
ALTER TABLE index_meta DROP COLUMN originals;
