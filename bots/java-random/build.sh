#!/bin/sh
# java-random: `sh build.sh` compiles into build/; `sh build.sh test` also runs the golden
# vectors of protocol/vectors/ (VECTORS=dir to use others). Needs a JDK (javac) and the
# Debian jars of libjeromq-java and libmsgpack-java (JARS=dir if they live elsewhere).
set -eu
cd "$(dirname "$0")"
JARS=${JARS:-/usr/share/java}
CP="$JARS/jeromq.jar:$JARS/msgpack-core.jar"
for jar in "$JARS/jeromq.jar" "$JARS/msgpack-core.jar"; do
    [ -f "$jar" ] || { echo "missing $jar: install libjeromq-java and libmsgpack-java" >&2; exit 1; }
done
rm -rf build
mkdir -p build
cp schema.txt build/
javac -nowarn -d build -cp "$CP" src/*.java
if [ "${1:-}" = "test" ]; then
    mkdir -p build/test
    javac -d build/test -cp "build:$CP" test/*.java
    java -cp "build/test:build:$CP" VectorsTest "${VECTORS:-../../protocol/vectors}"
fi
