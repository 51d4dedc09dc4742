"""Steps the API tests share: a fight with tokens for every role."""

from __future__ import annotations

from dataclasses import dataclass

from tests.api.conftest import Api


@dataclass
class Fight:
    api: Api
    encounter_id: str
    gm: str
    acting: str  # the combatant whose turn it is
    waiting: str  # the other one
    acting_player: str
    waiting_player: str
    observer: str
    auditor: str

    @property
    def path(self) -> str:
        return f"/v1/encounters/{self.encounter_id}"

    async def version(self) -> int:
        response = await self.api.get(self.path, self.gm)
        version: int = response.json()["version"]
        return version


async def fight(api: Api, encounter_id: str, **options: object) -> Fight:
    gm = await api.skirmish(encounter_id, **options)
    summary = (await api.get(f"/v1/encounters/{encounter_id}", gm)).json()["summary"]
    acting = summary["acting"][0]
    waiting = "goblin" if acting == "bramli" else "bramli"
    return Fight(
        api=api,
        encounter_id=encounter_id,
        gm=gm,
        acting=acting,
        waiting=waiting,
        acting_player=await api.mint(encounter_id, "player", acting),
        waiting_player=await api.mint(encounter_id, "player", waiting),
        observer=await api.mint(encounter_id, "observer"),
        auditor=await api.mint(encounter_id, "auditor"),
    )
