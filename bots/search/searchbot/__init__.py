"""The search bot's parts: what its seat knows (`knowledge`), deals consistent with it
(`sampling`), a fast rollout policy on engine objects (`policy`), the playouts and the
search over them (`search`), and the time each decision may take (`budget`)."""
