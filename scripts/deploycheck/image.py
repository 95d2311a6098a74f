"""The Dockerfile as instructions and stages, read by BuildKit's own parser (the `dockerfile` package wraps it):
continuation lines, comments, JSON and shell forms and ENV pairs are read as `docker build` reads them."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

import dockerfile


@dataclass(frozen=True)
class Instruction:
    keyword: str  # FROM, RUN, COPY, ... in upper case
    words: tuple[str, ...]  # its arguments, as BuildKit splits them (a shell-form RUN or CMD is one word)
    flags: tuple[str, ...]  # --from=build, --interval=15s, ...
    exec_form: bool  # written as a JSON array
    line: int

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def exec_args(self) -> list[str] | None:
        """The arguments of an exec-form ENTRYPOINT or CMD; None for the shell form."""
        return list(self.words) if self.exec_form else None

    def flag(self, name: str) -> str | None:
        """The value of --name=VALUE among the flags (COPY --from=build), or None."""
        found = [flag.partition("=")[2] for flag in self.flags if flag.startswith(f"--{name}=")]
        return found[-1] if found else None


Stage = tuple[Instruction, ...]


def parse(text: str) -> tuple[Instruction, ...]:
    """The instructions of a Dockerfile; dockerfile.GoParseError if it does not parse."""
    return tuple(
        Instruction(command.cmd.upper(), tuple(command.value), tuple(command.flags), command.json, command.start_line)
        for command in dockerfile.parse_string(text)
    )


def stages(instructions: tuple[Instruction, ...]) -> list[Stage]:
    """The build stages, each from its FROM to the next."""
    found: list[list[Instruction]] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            found.append([])
        if found:
            found[-1].append(instruction)
    return [tuple(stage) for stage in found]


def base_image(stage: Stage) -> str:
    return stage[0].words[0]


def stage_name(stage: Stage) -> str | None:
    words = stage[0].words
    return words[2] if len(words) == 3 and words[1].upper() == "AS" else None


def of_kind(stage: Stage, keyword: str) -> list[Instruction]:
    return [instruction for instruction in stage if instruction.keyword == keyword]


def last_of_kind(stage: Stage, keyword: str) -> Instruction | None:
    found = of_kind(stage, keyword)
    return found[-1] if found else None


def run_text(stage: Stage) -> str:
    """Every RUN of a stage, as one shell text."""
    return " && ".join(re.sub(r"\s+", " ", instruction.text) for instruction in of_kind(stage, "RUN"))


def env(stage: Stage) -> dict[str, str]:
    """The ENV settings of a stage (quotes removed, as the build does), the last one winning."""
    pairs = [pair for i in of_kind(stage, "ENV") for pair in zip(i.words[::2], i.words[1::2], strict=False)]
    return {key: " ".join(shlex.split(value)) for key, value in pairs}


def image_user(instructions: tuple[Instruction, ...]) -> str | None:
    """The user (name or uid, without the group) the final stage runs as; None without USER."""
    final = stages(instructions)[-1:] or [()]
    user = last_of_kind(final[0], "USER")
    return user.text.partition(":")[0] if user else None
