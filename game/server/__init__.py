"""The Rangebox server (``python3 -m game.server``): rooms, their relay, referee and spectators."""
