/* SPDX-License-Identifier: Apache-2.0 */
#include "model/dns_message.h"

#include <stdio.h>

const char *enav_dns_type_name(uint16_t type, char *buf)
{
	static const struct {
		uint16_t type;
		const char *name;
	} names[] = {
	    {1, "A"},	   {2, "NS"},	   {5, "CNAME"},  {6, "SOA"},	{12, "PTR"},
	    {13, "HINFO"}, {15, "MX"},	   {16, "TXT"},	  {28, "AAAA"}, {33, "SRV"},
	    {35, "NAPTR"}, {39, "DNAME"},  {41, "OPT"},	  {43, "DS"},	{46, "RRSIG"},
	    {47, "NSEC"},  {48, "DNSKEY"}, {50, "NSEC3"}, {52, "TLSA"}, {64, "SVCB"},
	    {65, "HTTPS"}, {99, "SPF"},	   {252, "AXFR"}, {255, "ANY"}, {257, "CAA"},
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].type == type)
			return names[i].name;
	if (!buf)
		return "UNKNOWN";
	snprintf(buf, ENAV_DNS_TYPE_NAME_LEN, "TYPE%u", (unsigned)type);
	return buf;
}

const char *enav_dns_rcode_name(unsigned rcode)
{
	static const char *const names[16] = {
	    "NOERROR",	"FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP",  "REFUSED",
	    "YXDOMAIN", "YXRRSET", "NXRRSET",  "NOTAUTH",  "NOTZONE", "DSOTYPENI",
	    "RCODE12",	"RCODE13", "RCODE14",  "RCODE15",
	};

	return rcode < 16 ? names[rcode] : "INVALID";
}

const char *enav_dns_opcode_name(unsigned opcode)
{
	static const char *const names[16] = {
	    "QUERY",	"IQUERY",   "STATUS",	"OPCODE3",  "NOTIFY",	"UPDATE",
	    "DSO",	"OPCODE7",  "OPCODE8",	"OPCODE9",  "OPCODE10", "OPCODE11",
	    "OPCODE12", "OPCODE13", "OPCODE14", "OPCODE15",
	};

	return opcode < 16 ? names[opcode] : "INVALID";
}
