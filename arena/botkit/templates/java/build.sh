#!/bin/sh
# Compile into build/ (needs a JDK and Debian's libjeromq-java and libmsgpack-java).
set -eu
cd "$(dirname "$0")"
mkdir -p build
javac -nowarn -d build -cp /usr/share/java/jeromq.jar:/usr/share/java/msgpack-core.jar Bot.java
