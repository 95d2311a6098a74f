"""The server's four ports, by role (gRPC, web, metrics, health), are one number each everywhere: the Deployment's
containerPort named for the role, the flag its args give `truco serve`, the flags of the image's CMD (so
`docker run` and the cluster serve the same ports) and its EXPOSE, which lists the ports reached from outside the
container and so never the health port (`docker run -P` would publish it to every client)."""

from __future__ import annotations

from deploycheck import image
from deploycheck.model import Deploy
from deploycheck.server import ROLES, Role, Server, arg_after, the_server


def check_ports_agree(deploy: Deploy) -> list[str]:
    server = the_server(deploy)
    numbers = {role: server.port(role) for role in ROLES}
    problems = [
        f"{server.name}: args give {role.flag} {arg_after(server.args, role.flag)}, its port {role.port_name} is "
        f"{number}"
        for role, number in numbers.items()
        if arg_after(server.args, role.flag) != str(number)
    ]
    return problems + _image_ports(deploy, server, numbers)


def _image_ports(deploy: Deploy, server: Server, numbers: dict[Role, int]) -> list[str]:
    final = image.stages(deploy.dockerfile or ())[-1:]
    if not final:
        return ["Dockerfile: missing, or no FROM"]
    words = [word.partition("/")[0] for i in image.of_kind(final[0], "EXPOSE") for word in i.words]
    exposed = {int(word) for word in words if word.isdigit()}
    published = {number for role, number in numbers.items() if role.published}
    problems = []
    if exposed != published:
        problems.append(f"Dockerfile: EXPOSE {sorted(exposed)}, while {server.name} serves {sorted(published)}")
    problems += [
        f"Dockerfile: EXPOSE {number}, the {role.port_name} port, which nothing outside the container should reach"
        for role, number in numbers.items()
        if not role.published and number in exposed
    ]
    cmd = image.last_of_kind(final[0], "CMD")
    cmd_args = (cmd.exec_args() if cmd else None) or []
    for role, number in numbers.items():
        if arg_after(cmd_args, role.flag) != str(number):
            problems.append(
                f"Dockerfile: CMD gives {role.flag} {arg_after(cmd_args, role.flag)}, "
                f"{server.name} serves {role.port_name} on {number}"
            )
    return problems
