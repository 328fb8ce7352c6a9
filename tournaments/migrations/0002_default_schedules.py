"""Shipped schedules: two daily tournaments for Brazilian and European evenings and an hourly quick one."""

import datetime

from django.db import migrations

DEFAULTS = [
    # 23:00 UTC = 20:00 in Brasília (UTC-3, no daylight saving since 2019).
    {"name_en": "Brazilian Evening Daily", "name_pt": "Diário da Noite (Brasil)",
     "frequency": "daily", "time_of_day": datetime.time(23, 0), "match_target": 100},
    # 19:00 UTC = 20:00 in Lisbon/London summer, 20:00 CET in winter, 21:00 CEST in summer.
    {"name_en": "European Evening Daily", "name_pt": "Diário da Noite (Europa)",
     "frequency": "daily", "time_of_day": datetime.time(19, 0), "match_target": 100},
    # Every hour on the hour: 3 rounds to 50, so one always starts within the hour.
    {"name_en": "Hourly Quick", "name_pt": "Rápido de Hora em Hora",
     "frequency": "hourly", "time_of_day": datetime.time(0, 0), "match_target": 50, "rounds": 3},
]


def create(apps, schema_editor):
    Schedule = apps.get_model("tournaments", "TournamentSchedule")
    for row in DEFAULTS:
        Schedule.objects.get_or_create(name_en=row["name_en"], defaults=row)


def remove(apps, schema_editor):
    Schedule = apps.get_model("tournaments", "TournamentSchedule")
    Schedule.objects.filter(name_en__in=[row["name_en"] for row in DEFAULTS], tournaments__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("tournaments", "0001_initial")]
    operations = [migrations.RunPython(create, remove)]
