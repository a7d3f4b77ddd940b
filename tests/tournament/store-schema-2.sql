BEGIN TRANSACTION;
CREATE TABLE build_outputs (  -- unused (see the module docstring)
    folder TEXT NOT NULL,               -- a bot folder
    path TEXT NOT NULL,                 -- a file its build wrote, relative to the folder
    PRIMARY KEY (folder, path)
);
CREATE TABLE entrants (
    key TEXT PRIMARY KEY,               -- name@version
    name TEXT NOT NULL,                 -- from bot.toml
    version TEXT NOT NULL,              -- content hash of the bot folder
    bot_version TEXT NOT NULL,          -- the author's version string from bot.toml
    language TEXT NOT NULL,
    folder TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('config', 'submit')),
    retired INTEGER NOT NULL DEFAULT 0, -- 1: a newer version of its folder replaced it
    added_at TEXT NOT NULL
);
INSERT INTO "entrants" VALUES('a@v1','a','v1','1.0','python','/bots/a','config',0,'2025-01-01T00:00:00+0000');
INSERT INTO "entrants" VALUES('b@v1','b','v1','1.0','python','/bots/b','config',0,'2025-01-01T00:00:00+0000');
CREATE TABLE failures (
    entrant TEXT NOT NULL REFERENCES entrants(key),
    kind TEXT NOT NULL,                 -- a bot-fault termination: timeout, crash, ...
    count INTEGER NOT NULL,
    PRIMARY KEY (entrant, kind)
);
INSERT INTO "failures" VALUES('b@v1','timeout',1);
CREATE TABLE games (
    game_id TEXT PRIMARY KEY,
    pair_id TEXT NOT NULL,
    pair_index INTEGER NOT NULL,
    game_index INTEGER NOT NULL CHECK (game_index IN (0, 1)),
    seed INTEGER NOT NULL,
    team0 TEXT NOT NULL REFERENCES entrants(key),  -- seats 0 and 2
    team1 TEXT NOT NULL REFERENCES entrants(key),  -- seats 1 and 3
    score0 INTEGER NOT NULL,
    score1 INTEGER NOT NULL,
    winner INTEGER CHECK (winner IN (0, 1)),
    rounds INTEGER NOT NULL,
    termination TEXT NOT NULL,
    fault_seat INTEGER,
    fault_team INTEGER,
    fault_message TEXT,
    seconds REAL NOT NULL,
    record TEXT NOT NULL,               -- the record file, relative to the store's folder
    finished_at TEXT NOT NULL,
    UNIQUE (pair_id, game_index)
);
INSERT INTO "games" VALUES('a@v1~b@v1#0.0','a@v1~b@v1#0',0,0,8834939238806220894,'a@v1','b@v1',1000,300,0,7,'normal',NULL,NULL,NULL,1.5,'records/a@v1~b@v1/00000-0','2025-01-01T00:00:00+0000');
INSERT INTO "games" VALUES('a@v1~b@v1#0.1','a@v1~b@v1#0',0,1,8834939238806220894,'b@v1','a@v1',300,1000,1,4,'timeout',2,0,'slow',2.5,'records/a@v1~b@v1/00000-1','2025-01-01T00:00:00+0000');
CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
INSERT INTO "meta" VALUES('schema_version','2');
INSERT INTO "meta" VALUES('deal_secret','0000000000000000000000000000000000000000000000000000000000000000');
INSERT INTO "meta" VALUES('name','old');
CREATE TABLE submissions (
    folder TEXT PRIMARY KEY,
    added_at TEXT NOT NULL
);
CREATE INDEX games_by_team0 ON games (team0);
CREATE INDEX games_by_team1 ON games (team1);
COMMIT;
