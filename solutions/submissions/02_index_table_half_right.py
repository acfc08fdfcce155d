class MyIndexTable(index_table.IndexTableExercise):
    """Registers through a lookup table, but logs in by scanning the users with ALLOW FILTERING."""

    def lookup_tables(self):
        return [f"CREATE TABLE IF NOT EXISTS {self.keyspace}.users_by_email (email text PRIMARY KEY, user_id uuid)"]

    def register(self, tx, n):
        user_id, email, name, password_hash = index_table.user_row(n)
        tx.call("insert_user", self.session.execute, self.statements.insert_user, (user_id, email, name, password_hash))
        lookup = self.prepare(f"INSERT INTO {self.keyspace}.users_by_email (email, user_id) VALUES (?, ?)")
        tx.call("insert_lookup", self.session.execute, lookup, (email, user_id))

    def login(self, tx, n):
        query = f"SELECT id, email, name, password_hash FROM {self.keyspace}.users_pattern WHERE email = %s ALLOW FILTERING"
        return tx.call("scan_users", self.session.execute, query, (index_table.email_of(n),)).one()
